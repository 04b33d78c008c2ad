import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { readConfig, type Logger } from '@catalog/platform';
import {
  apiClient as platformApiClient,
  createTestDatabase,
  serviceEnvironment,
  testLogger,
  uniqueNatsPrefix,
  type ApiClient,
  type TestDatabase,
} from '@catalog/testing';
import { gatewayConfig, startGateway, type GatewayHandle } from '@catalog/gateway';
import { assetConfig, startAssetService, type AssetServiceHandle } from '../src/index.js';

export const ADMIN_TOKEN = 'asset-test-admin-token';

export type Backend = 'fs' | 's3';

/** S3 settings of the MinIO that `npm test` / .ci/run start (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY). */
export function s3Infrastructure(): { endpoint: string; accessKey: string; secretKey: string } {
  const endpoint = process.env.S3_ENDPOINT;
  const accessKey = process.env.S3_ACCESS_KEY;
  const secretKey = process.env.S3_SECRET_KEY;
  if (!endpoint || !accessKey || !secretKey) {
    throw new Error('s3 tests need S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY: run them with `npm test`, which starts MinIO');
  }
  return { endpoint, accessKey, secretKey };
}

export interface Stack {
  baseUrl: string;
  backend: Backend;
  blobDir: string;
  bucket: string;
  gateway: GatewayHandle;
  asset: AssetServiceHandle;
  database: TestDatabase;
  env: Record<string, string>;
  api: ReturnType<typeof apiClient>;
  /** Runs a query as the database owner (bypasses row-level security): for checks only. */
  query<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<T[]>;
  stop(): Promise<void>;
}

/**
 * The gateway and the asset service in this process, against a database, a NATS prefix, a blob
 * directory and (s3) a bucket of their own; they talk over NATS and HTTP as in production.
 */
export async function startStack(backend: Backend, overrides: Record<string, string> = {}, log?: Logger): Promise<Stack> {
  const database = await createTestDatabase(`asset${backend}`);
  const blobDir = mkdtempSync(join(tmpdir(), 'asset-blobs-'));
  const bucket = `t-${randomBytes(6).toString('hex')}`;
  const env: Record<string, string> = {
    ...(await serviceEnvironment(database, ['gateway', 'asset'])),
    NATS_PREFIX: uniqueNatsPrefix('asset'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    ASSET_HTTP_PORT: '0',
    ADMIN_TOKEN,
    BLOB_DIR: blobDir,
    BLOB_BACKEND: backend,
    BLOB_SIGNING_SECRET: randomBytes(32).toString('hex'),
    DB_POOL_SIZE: '5',
    IP_RATE_LIMIT_PER_MINUTE: '0',
    ...(backend === 's3'
      ? (() => {
          const s3 = s3Infrastructure();
          return { S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_BUCKET: bucket };
        })()
      : {}),
    ...overrides,
  };
  const logger = log ?? testLogger('asset-test');
  const owner = new pg.Pool({ connectionString: database.url, max: 2 });
  // Dropping the database at the end terminates idle connections; that is no failure of the test.
  owner.on('error', () => undefined);
  let gateway: GatewayHandle | undefined;
  try {
    gateway = await startGateway(readConfig(gatewayConfig, env), { logger });
    env.PUBLIC_BASE_URL = gateway.url;
    const asset = await startAssetService(readConfig(assetConfig, env), { logger });
    const api = apiClient(gateway.url);
    return {
      baseUrl: gateway.url,
      backend,
      blobDir,
      bucket,
      gateway,
      asset,
      database,
      env,
      api,
      async query(text, values) {
        return (await owner.query(text, values as unknown[])).rows;
      },
      async stop() {
        await asset.stop();
        await gateway!.stop();
        await owner.end();
        await database.drop();
        rmSync(blobDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await gateway?.stop().catch(() => undefined);
    await owner.end().catch(() => undefined);
    await database.drop().catch(() => undefined);
    throw error;
  }
}

/** The public HTTP API client of `@catalog/testing`, with this stack's admin token. */
export function apiClient(baseUrl: string): ApiClient {
  return platformApiClient(baseUrl, ADMIN_TOKEN);
}

/** `POST /api/v1/catalog/assets`, which must answer 201: the asset with its upload target. */
export async function createAsset(api: ApiClient, key: string, upload: Record<string, unknown>, retention = 'standalone'): Promise<any> {
  const created = await api.request('POST', '/api/v1/catalog/assets', { key, body: { retention, upload } });
  expect(created.status).toBe(201);
  return created.body;
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * PUTs a file (or a generated stream) to a URL with node:http, streaming. `contentLength`
 * overrides the header (null: chunked). Resolves with the answer even when the server answers
 * before it has read everything.
 */
export function put(
  url: string,
  headers: Record<string, string>,
  body: { path: string } | { stream: Readable },
  contentLength?: number | null,
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const outgoing: Record<string, string> = { ...headers };
    const length = contentLength === undefined && 'path' in body ? statSync(body.path).size : contentLength;
    if (length !== undefined && length !== null) outgoing['content-length'] = String(length);
    const req = httpRequest(url, { method: 'PUT', headers: outgoing });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const source = 'path' in body ? createReadStream(body.path) : body.stream;
    source.on('error', reject);
    source.pipe(req);
    // A server that answers early makes further writes fail; that is the answer we want.
    req.on('error', () => undefined);
  });
}

export interface Downloaded {
  status: number;
  headers: IncomingHttpHeaders;
  size: number;
  sha256: string;
  text: string;
}

/** GETs a URL, hashing the body as it streams (the text is kept only for small bodies). */
export function download(url: string, headers: Record<string, string> = {}): Promise<Downloaded> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers });
    req.on('response', (res) => {
      const hash = createHash('sha256');
      let size = 0;
      let text = '';
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
        if (text.length < 64 * 1024) text += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, size, sha256: hash.digest('hex'), text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'asset-test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `size` random bytes to `path` in 1 MiB chunks (never whole in memory); returns their sha256. */
export async function randomFile(path: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  async function* chunks() {
    for (let left = size; left > 0;) {
      const chunk = randomBytes(Math.min(left, 1024 * 1024));
      hash.update(chunk);
      left -= chunk.length;
      yield chunk;
    }
  }
  await pipeline(Readable.from(chunks()), createWriteStream(path));
  return hash.digest('hex');
}

/** sha256 of a file, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
