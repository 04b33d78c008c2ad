import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readConfig } from '@catalog/platform';
import { createTestDatabase, serviceEnvironment, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { gatewayConfig, startGateway, type GatewayHandle } from '../src/index.js';

export const ADMIN_TOKEN = 'gateway-test-admin-token';

export interface TestGateway {
  gateway: GatewayHandle;
  database: TestDatabase;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** The gateway alone, on a database and a NATS prefix of its own, with `overrides` in its environment. */
export async function startTestGateway(overrides: Record<string, string> = {}): Promise<TestGateway> {
  const database = await createTestDatabase('gateway');
  const env: Record<string, string> = {
    // As itself (decisions 0055-0057): its own database role and NATS user, the call context secret.
    ...(await serviceEnvironment(database, ['gateway'])),
    NATS_PREFIX: uniqueNatsPrefix('gw'),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HTTP_HOST: '127.0.0.1',
    PORT: '0',
    ADMIN_TOKEN,
    DB_POOL_SIZE: '3',
    ...overrides,
  };
  try {
    const gateway = await startGateway(readConfig(gatewayConfig, env), { logger: testLogger('gateway') });
    return {
      gateway,
      database,
      env,
      async stop() {
        await gateway.stop();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop().catch(() => undefined);
    throw error;
  }
}

export interface SeenRequest {
  method: string;
  url: string;
  body: string;
}

/** An HTTP server on loopback that records every request it receives and answers `status` with a JSON body. */
export interface RecordingServer {
  url: string;
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startRecordingServer(
  answer: (req: IncomingMessage) => { status: number; body: unknown } = () => ({ status: 200, body: { ok: true } }),
): Promise<RecordingServer> {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      const { status, body } = answer(req);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A response body as the tests read it: the error body, or any other JSON. */
export interface RawBody {
  error?: { code: string; message: string; requestId: string; details?: Record<string, unknown> };
  [field: string]: unknown;
}

export interface RawExchange {
  /** Everything the server sent before it closed the connection (or before `timeoutMs`). */
  text: string;
  /** The status code of the first response line, if any. */
  status: number | null;
  /** The JSON body of the response, when it has one (an error body in these tests). */
  body: RawBody;
  /** Whether the server closed the connection. */
  closed: boolean;
}

/**
 * Sends `request` as raw bytes over TCP (for request targets `fetch` would never send) and reads
 * until the server closes the connection or `timeoutMs` passes; the request should carry
 * `Connection: close`.
 */
export function rawRequest(port: number, request: string, timeoutMs = 10_000): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const payload = rest.join('\r\n\r\n');
      const json = /^transfer-encoding: *chunked/im.test(head) ? dechunk(payload) : payload;
      let body: RawBody = {};
      try {
        body = json ? (JSON.parse(json) as RawBody) : {};
      } catch {
        body = { text: json };
      }
      resolve({ text, status: status ? Number(status[1]) : null, body, closed });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.write(request);
  });
}

/** The payload of a chunked message body (enough for the small bodies of these tests). */
function dechunk(payload: string): string {
  let rest = payload;
  let out = '';
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = lineEnd < 0 ? 0 : parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
