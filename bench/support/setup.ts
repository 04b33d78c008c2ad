import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createTestDatabase, serviceEnvironment, type TestDatabase } from '@catalog/testing';

/** A fresh database for one benchmark run, with the roles of decision 0057 (`drop()` removes it). */
export function createBenchDatabase(label: string): Promise<TestDatabase> {
  return createTestDatabase(`bench${label}`);
}

/** A JSON request that must succeed (2xx); the body of the answer. */
export async function fetchJson(url: string, init: RequestInit): Promise<any> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${new URL(url).pathname}: ${response.status} ${await response.text()}`);
  return response.json();
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/**
 * A request over node:http with a keep-alive agent (a plain client, lighter than fetch, so the
 * load generator takes less of the CPU it shares with the system under test); must succeed (2xx:
 * otherwise it rejects with an error whose `status` is the answer's).
 * Resolves with the body as text once its last byte has arrived.
 */
export function requestText(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const allHeaders = payload ? { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) } : headers;
    const req = request(url, { method, agent: keepAlive, headers: allHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300)
          reject(Object.assign(new Error(`${method} ${new URL(url).pathname}: ${status} ${text}`), { status }));
        else resolve(text);
      });
    });
    // No answer within a minute (a service killed mid-request, say) is a failure, not a hang.
    req.setTimeout(60_000, () =>
      req.destroy(Object.assign(new Error(`${method} ${new URL(url).pathname}: no answer`), { name: 'Timeout' })),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** `requestText`, with the body parsed as JSON. */
export async function requestJson(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const text = await requestText(method, url, headers, body);
  return text ? JSON.parse(text) : null;
}

export interface BenchEnv {
  env: Record<string, string>;
  adminToken: string;
  natsPrefix: string;
}

/**
 * The environment the services of one benchmark run share: its database (each service as its own
 * role, with its own NATS user, as in production), a NATS prefix of its own, a fresh admin token,
 * no per-IP limit (one client IP makes all the load), no telemetry export; `settings` adds to it
 * or overrides it (log level, pool size, …).
 */
export async function benchEnv(database: TestDatabase, settings: Record<string, string> = {}): Promise<BenchEnv> {
  const adminToken = randomBytes(16).toString('hex');
  const natsPrefix = `bench${randomBytes(3).toString('hex')}`;
  return {
    adminToken,
    natsPrefix,
    env: {
      ...(await serviceEnvironment(database)),
      NATS_PREFIX: natsPrefix,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ADMIN_TOKEN: adminToken,
      IP_RATE_LIMIT_PER_MINUTE: '0',
      HTTP_HOST: '127.0.0.1',
      OTEL_SDK_DISABLED: 'true',
      ...settings,
    },
  };
}
