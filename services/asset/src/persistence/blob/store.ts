import type { Readable } from 'node:stream';

/** What a stored object is now: its length and a token that changes whenever its bytes are replaced. */
export interface BlobStat {
  size: number;
  etag: string;
}

export interface BlobDigest extends BlobStat {
  /** Lower-case hex SHA-256 of the bytes read. */
  sha256: string;
}

/** What an upload target allows: one PUT of `contentType` bytes (of `size`, hashing to `sha256`) to `key`. */
export interface UploadSpec {
  key: string;
  contentType: string;
  size: number | null;
  sha256: string | null;
  expiresAt: Date;
}

export interface SignedTarget {
  url: string;
  headers: Record<string, string>;
}

/** A local file holding an object's bytes. */
export interface LocalFile {
  path: string;
  /** The bytes' digest: computed while a copy was made, or by reading the file when asked; null if it is gone. */
  digest(): Promise<BlobDigest | null>;
}

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where asset bytes live. Keys are `<tenant>/<asset>/<upload>`; the client writes the bytes
 * itself through `uploadTarget`, and the service never holds a file in memory: every read is a
 * stream.
 */
export interface BlobStore {
  readonly backend: 'fs' | 's3';
  /** Prepares the store (directories, bucket); called once at start. */
  start(): Promise<void>;
  uploadTarget(spec: UploadSpec): Promise<SignedTarget>;
  /** null when there is no object under `key`. */
  stat(key: string): Promise<BlobStat | null>;
  /** Reads the whole object once and hashes it; null when there is none. */
  digest(key: string): Promise<BlobDigest | null>;
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; no error when there is none. */
  remove(key: string): Promise<void>;
  /**
   * Runs `use` with a local file holding the object (the object's own file, or a temporary copy
   * removed afterwards), for tools that must read local files only; null when there is no object
   * under `key`.
   */
  withLocalFile<T>(key: string, use: (local: LocalFile) => Promise<T>): Promise<T | null>;
}

const KEY =
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function objectKey(tenantId: string, assetId: string, uploadId: string): string {
  return `${tenantId}/${assetId}/${uploadId}`;
}

export function parseObjectKey(key: string): { tenantId: string; assetId: string; uploadId: string } | null {
  const match = KEY.exec(key);
  return match ? { tenantId: match[1]!, assetId: match[2]!, uploadId: match[3]! } : null;
}
