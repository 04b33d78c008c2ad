import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import { createLogger, type Logger } from '../logger.js';

/**
 * Test infrastructure comes from the environment (DATABASE_URL, NATS_URL), started by
 * `npm test` / `.ci/run`; every test file works in a database and a NATS subject prefix of its own.
 */
export function testInfrastructure(): { databaseUrl: string; natsUrl: string } {
  const databaseUrl = process.env.DATABASE_URL;
  const natsUrl = process.env.NATS_URL;
  if (!databaseUrl || !natsUrl) {
    throw new Error('tests need DATABASE_URL and NATS_URL: run them with `npm test`, which starts Postgres and NATS');
  }
  return { databaseUrl, natsUrl };
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates an empty database for one test file; `drop()` removes it. */
export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const { databaseUrl } = testInfrastructure();
  const name = `t_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A NATS subject/stream prefix nobody else uses. */
export function uniqueNatsPrefix(label = 't'): string {
  return `${label.replace(/[^A-Za-z0-9]/g, '')}${randomBytes(4).toString('hex')}`;
}

/** A logger for tests: silent unless TEST_LOG_LEVEL is set. */
export function testLogger(service = 'test'): Logger {
  return createLogger({ service, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** A logger that keeps what it writes: `lines()` are its log lines so far, parsed. */
export function capturingLogger(service = 'test'): { logger: Logger; lines(): Array<Record<string, any>> } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    logger: createLogger({ service, destination: sink }),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>),
  };
}

/** Polls `probe` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${(lastError as Error).message}` : ''}`);
}
export { natsServerBinary, startOwnNatsServer, type OwnNatsServer } from './nats-server.js';
export * from './service-probe.js';
export { freePort } from './free-port.js';
export { publishEvent, untilConsumerSettled } from './events-stream.js';
export { startOtlpCollector, type OtlpCollector } from './otlp-collector.js';
export { apiClient, type ApiClient, type ApiRequestOptions, type ApiResponse, type TestTenant } from './api-client.js';
export { sineWav, writeSineWav, type SineWavOptions } from './wav.js';
