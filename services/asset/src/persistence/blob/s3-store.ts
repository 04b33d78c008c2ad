import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import type { Logger } from '@catalog/platform';
import { presignPut } from './s3-presign.js';
import type { BlobDigest, BlobStat, BlobStore, ByteRange, LocalFile, SignedTarget, UploadSpec } from './store.js';

export interface S3Settings {
  /** Where the service reaches the S3 endpoint. */
  endpoint: string;
  /** Where clients reach it (upload URLs are signed for this host); defaults to `endpoint`. */
  publicEndpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

function client(endpoint: string, settings: S3Settings): Client {
  const url = new URL(endpoint);
  const useSSL = url.protocol === 'https:';
  return new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: settings.accessKey,
    secretKey: settings.secretKey,
    // A fixed region: presigning then needs no request to the server.
    region: settings.region,
    pathStyle: true,
  });
}

/** Streams an object's body into `sink`, counting and hashing it; its etag comes from the response headers. */
async function hashed(stream: Readable, sink: Writable): Promise<BlobDigest> {
  const etag = String((stream as IncomingMessage).headers?.etag ?? '').replace(/^"|"$/g, '');
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(stream, meter, sink);
  return { size, etag, sha256: hash.digest('hex') };
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'NotFound' || code === 'NoSuchKey';
}

/**
 * MinIO or any S3 endpoint through the `minio` client. Clients upload with a presigned PUT straight
 * to the endpoint (signed for `publicEndpoint`, the address they can reach) that binds the
 * declared length (when one is declared: otherwise confirm holds the object to the size limit,
 * decision 0148) and content type (decision 0059); the service reads objects as streams for confirmation and downloads, and copies audio to a
 * temporary file for ffprobe. The bucket is created at start.
 */
export class S3BlobStore implements BlobStore {
  readonly backend = 's3' as const;
  private readonly s3: Client;

  constructor(
    private readonly settings: S3Settings,
    private readonly logger: Logger,
  ) {
    this.s3 = client(settings.endpoint, settings);
  }

  async start(): Promise<void> {
    if (await this.s3.bucketExists(this.settings.bucket)) return;
    try {
      await this.s3.makeBucket(this.settings.bucket, this.settings.region);
      this.logger.info({ bucket: this.settings.bucket }, 'bucket created');
    } catch (error) {
      // Another replica created it first.
      const code = (error as { code?: string }).code;
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw error;
    }
  }

  async uploadTarget(spec: UploadSpec): Promise<SignedTarget> {
    const { publicEndpoint, region, accessKey, secretKey, bucket } = this.settings;
    const url = presignPut({
      endpoint: publicEndpoint,
      region,
      accessKey,
      secretKey,
      bucket,
      key: spec.key,
      expiresSeconds: Math.min(7 * 24 * 3600, Math.max(1, Math.ceil((spec.expiresAt.getTime() - Date.now()) / 1000))),
      contentType: spec.contentType,
      contentLength: spec.size,
    });
    return { url, headers: { 'Content-Type': spec.contentType } };
  }

  async stat(key: string): Promise<BlobStat | null> {
    try {
      const info = await this.s3.statObject(this.settings.bucket, key);
      return { size: info.size, etag: info.etag };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** The whole object as a stream; null when there is none. */
  private async object(key: string): Promise<Readable | null> {
    try {
      return await this.s3.getObject(this.settings.bucket, key);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async digest(key: string): Promise<BlobDigest | null> {
    const stream = await this.object(key);
    return stream && hashed(stream, new Writable({ write: (_chunk, _encoding, done) => done() }));
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    return range
      ? this.s3.getPartialObject(this.settings.bucket, key, range.start, range.end - range.start + 1)
      : this.s3.getObject(this.settings.bucket, key);
  }

  async remove(key: string): Promise<void> {
    await this.s3.removeObject(this.settings.bucket, key);
  }

  async withLocalFile<T>(key: string, use: (local: LocalFile) => Promise<T>): Promise<T | null> {
    const stream = await this.object(key);
    if (!stream) return null;
    const path = join(tmpdir(), `asset-probe-${randomUUID()}`);
    try {
      // One read of the object: copied and hashed on the way.
      const digest = await hashed(stream, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
      return await use({ path, digest: async () => digest });
    } finally {
      await rm(path, { force: true });
    }
  }
}
