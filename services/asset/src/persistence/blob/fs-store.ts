import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, badRequest, payloadTooLarge } from '@catalog/platform';
import { FileSink } from './file-sink.js';
import type { UrlSigner } from './signing.js';
import {
  parseObjectKey,
  type BlobDigest,
  type BlobStat,
  type BlobStore,
  type ByteRange,
  type LocalFile,
  type SignedTarget,
  type UploadSpec,
} from './store.js';

/** The signed parameters of an fs upload URL. */
export interface FsUploadGrant {
  key: string;
  contentType: string;
  size: number | null;
  sha256: string | null;
}

/** Bytes received by an fs upload, verified and durable in a temporary file until `commit`. */
export interface StagedUpload {
  size: number;
  sha256: string;
  /** Moves the bytes under their key (atomic rename); returns the stored object's stat. */
  commit(): Promise<BlobStat>;
  discard(): Promise<void>;
}

export const UPLOAD_PATH_PREFIX = '/uploads/';

/**
 * The embedded backend: objects are files under `<dir>/objects/<key>`. Uploads are PUT to signed
 * URLs of the public base (the gateway proxies them to this service's listener); each is written
 * to `<dir>/tmp`, counted and hashed while it streams, and renamed into place only when complete
 * and as declared, so a rejected upload leaves nothing behind.
 */
export class FsBlobStore implements BlobStore {
  readonly backend = 'fs' as const;
  private readonly objects: string;
  private readonly tmp: string;

  constructor(
    dir: string,
    private readonly signer: UrlSigner,
    private readonly publicBaseUrl: string,
  ) {
    this.objects = join(resolve(dir), 'objects');
    this.tmp = join(resolve(dir), 'tmp');
  }

  async start(): Promise<void> {
    await mkdir(this.objects, { recursive: true });
    await mkdir(this.tmp, { recursive: true });
  }

  private path(key: string): string {
    if (!parseObjectKey(key)) throw new Error('invalid object key');
    return join(this.objects, key);
  }

  async uploadTarget(spec: UploadSpec): Promise<SignedTarget> {
    const params: Record<string, string> = { ct: spec.contentType };
    if (spec.size !== null) params.len = String(spec.size);
    if (spec.sha256 !== null) params.sha256 = spec.sha256;
    const path = `${UPLOAD_PATH_PREFIX}${spec.key}`;
    return {
      url: `${this.publicBaseUrl}${path}?${this.signer.sign('PUT', path, params, spec.expiresAt)}`,
      headers: { 'Content-Type': spec.contentType },
    };
  }

  /** Checks an upload request's signature (403 when wrong or expired) and returns what it allows. */
  verifyUpload(path: string, query: URLSearchParams): FsUploadGrant {
    const key = path.startsWith(UPLOAD_PATH_PREFIX) ? path.slice(UPLOAD_PATH_PREFIX.length) : '';
    const params = this.signer.verify('PUT', path, query);
    if (!parseObjectKey(key) || params.ct === undefined)
      throw new AppError(403, 'invalid_signature', 'the URL signature does not match this request');
    return { key, contentType: params.ct, size: params.len === undefined ? null : Number(params.len), sha256: params.sha256 ?? null };
  }

  /**
   * Streams `body` (the bytes for `key`) into a temporary file, counting and hashing it. More bytes than `maxBytes` → 413
   * at once; fewer than `expectedSize` → 400; another sha256 than `expectedSha256` → 400. On any
   * failure the temporary file is removed.
   */
  async stage(
    key: string,
    body: Readable,
    limits: { maxBytes: number; expectedSize: number | null; expectedSha256: string | null },
  ): Promise<StagedUpload> {
    const tempPath = join(this.tmp, `${randomUUID()}.part`);
    const hash = createHash('sha256');
    let size = 0;
    const file = await open(tempPath, 'wx');
    const writeback = earlyWriteback(file);
    const meter = new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
        size += chunk.length;
        if (size > limits.maxBytes) {
          callback(payloadTooLarge(`the upload is longer than ${limits.maxBytes} bytes`, { limitBytes: limits.maxBytes }));
          return;
        }
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    try {
      // The sink fsyncs before it reports it has finished; the early writeback has already sent
      // most of the bytes to the disk while the rest were still arriving.
      await pipeline(body, meter, new FileSink(file, (bytes) => writeback.wrote(bytes)));
      await writeback.settled();
      await file.close();
      if (limits.expectedSize !== null && size !== limits.expectedSize) {
        throw badRequest('upload_size_mismatch', `the upload has ${size} bytes, ${limits.expectedSize} were declared`, {
          declaredSize: limits.expectedSize,
          receivedSize: size,
        });
      }
      const sha256 = hash.digest('hex');
      if (limits.expectedSha256 !== null && sha256 !== limits.expectedSha256) {
        throw badRequest('checksum_mismatch', 'the sha256 of the upload differs from the declared checksum', {
          declaredChecksum: `sha256:${limits.expectedSha256}`,
        });
      }
      return {
        size,
        sha256,
        commit: async () => this.place(tempPath, key),
        discard: async () => {
          await unlink(tempPath).catch(() => undefined);
        },
      };
    } catch (error) {
      await writeback.settled();
      await file.close().catch(() => undefined);
      await unlink(tempPath).catch(() => undefined);
      throw error;
    }
  }

  /** Renames a verified temporary file under `key` (replacing what was there) and makes it durable. */
  private async place(tempPath: string, key: string): Promise<BlobStat> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    await rename(tempPath, target);
    const dir = await open(dirname(target), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    const stored = await this.stat(key);
    if (!stored) throw new Error('object vanished right after it was stored');
    return stored;
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const info = await stat(this.path(key));
      return { size: info.size, etag: fileEtag(info) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async digest(key: string): Promise<BlobDigest | null> {
    const before = await this.stat(key);
    if (!before) return null;
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(this.path(key), { highWaterMark: 1024 * 1024 })) {
      size += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
    return { size, etag: before.etag, sha256: hash.digest('hex') };
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.path(key);
    const handle = await open(path, 'r');
    return createReadStream('', { fd: handle, highWaterMark: 256 * 1024, ...(range ? { start: range.start, end: range.end } : {}) });
  }

  async remove(key: string): Promise<void> {
    const path = this.path(key);
    await rm(path, { force: true });
    // Prune the now empty asset and tenant directories (another upload may race to fill them).
    for (let dir = dirname(path); dir.startsWith(this.objects) && dir !== this.objects; dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }

  async withLocalFile<T>(key: string, use: (local: LocalFile) => Promise<T>): Promise<T | null> {
    return (await this.stat(key)) ? use({ path: this.path(key), digest: () => this.digest(key) }) : null;
  }

  /** Removes temporary files older than `olderThanMs` (uploads cut off by a crash). */
  async removeStaleTemporaryFiles(olderThanMs: number): Promise<number> {
    let removed = 0;
    const cutoff = Date.now() - olderThanMs;
    for (const name of await readdir(this.tmp).catch(() => [] as string[])) {
      const path = join(this.tmp, name);
      const info = await stat(path).catch(() => null);
      if (info && info.mtimeMs < cutoff) {
        await unlink(path).catch(() => undefined);
        removed += 1;
      }
    }
    return removed;
  }
}

/** How many bytes an upload writes between two early writebacks. */
const WRITEBACK_EVERY_BYTES = 16 * 1024 * 1024;

/**
 * Starts the disk writing a large upload's bytes while the rest are still arriving: every
 * `WRITEBACK_EVERY_BYTES`, an `fdatasync` of what was written so far runs on the thread pool (one
 * at a time, never awaited by the stream). Without it the kernel holds the whole file as dirty
 * pages (its background threshold is a share of the RAM) and the final fsync writes all of it
 * after the last byte arrived. Failures are ignored here: the final fsync reports them.
 */
function earlyWriteback(file: FileHandle): { wrote(bytes: number): void; settled(): Promise<void> } {
  let pending = 0;
  let inFlight: Promise<void> | null = null;
  return {
    wrote(bytes) {
      pending += bytes;
      if (pending < WRITEBACK_EVERY_BYTES || inFlight) return;
      pending = 0;
      inFlight = file
        .datasync()
        .catch(() => undefined)
        .then(() => {
          inFlight = null;
        });
    },
    settled: async () => {
      await inFlight;
    },
  };
}

function fileEtag(info: { ino: number; size: number; mtimeMs: number }): string {
  return `${info.ino.toString(36)}-${info.size.toString(36)}-${Math.floor(info.mtimeMs * 1000).toString(36)}`;
}
