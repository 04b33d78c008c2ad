import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import {
  createHttpApp,
  DEFAULT_HTTP_TIMEOUTS,
  listen,
  readJsonBody,
  relayChunks,
  type HttpTimeouts,
  type RunningServer,
} from '@catalog/platform';
import { testLogger } from '@catalog/testing';

/**
 * Slow clients are cut off (decision 0050): headers trickled past the headers timeout, a body
 * trickled below the least rate or stopped, a JSON body that does not arrive in time. A large body
 * that keeps progressing is not, also when the server holds it back. Short limits, and no timing
 * asserted: only what the client receives and that the connection is closed.
 */
const timeouts: HttpTimeouts = {
  ...DEFAULT_HTTP_TIMEOUTS,
  headersTimeoutMs: 300,
  requestTimeoutMs: 600,
  idleTimeoutMs: 5_000,
  bodyReadTimeoutMs: 200,
  bodyMinBytesPerSecond: 1_000,
};

interface Exchange {
  text: string;
  closed: boolean;
}

/** Opens a connection, runs `send` on it, and resolves with what came back once the server closes it (or after 10 s). */
function exchange(port: number, send: (socket: Socket, closed: () => boolean) => Promise<void>): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const timer = setTimeout(() => finish(), 10_000);
    function finish(): void {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed });
    }
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', () => {
      void send(socket, () => closed).catch(() => undefined);
    });
  });
}

/** Writes `piece` every `everyMs` until the connection closes or `times` pieces were sent. */
async function trickle(socket: Socket, closed: () => boolean, piece: string | Buffer, everyMs: number, times: number): Promise<void> {
  for (let i = 0; i < times && !closed(); i += 1) {
    socket.write(piece);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

interface ErrorAnswer {
  error: { code: string; requestId: string; details?: Record<string, unknown> };
}

const jsonBodyOf = <T = ErrorAnswer>(text: string): T => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as T;

async function startServer(streamedBodies: boolean): Promise<RunningServer> {
  const app = createHttpApp({
    logger: testLogger(),
    ready: async () => undefined,
    bodyReads: { windowMs: timeouts.bodyReadTimeoutMs, minBytesPerSecond: timeouts.bodyMinBytesPerSecond },
  });
  app.use(async (ctx) => {
    if (ctx.path === '/json') {
      ctx.body = { received: await readJsonBody(ctx, 1024 * 1024, { timeoutMs: 1_000 }) };
      return;
    }
    // Streams the body into a sink that is slow at first (it holds the body back for 1 s).
    let bytes = 0;
    let first = true;
    const sink = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (first) {
          first = false;
          setTimeout(done, 1_000);
        } else done();
      },
    });
    await relayChunks(ctx.req, sink).finished;
    ctx.body = { bytes };
  });
  return listen(app, 0, '127.0.0.1', { timeouts, streamedBodies });
}

describe('HTTP timeouts', () => {
  let streaming: RunningServer;
  let plain: RunningServer;
  beforeAll(async () => {
    streaming = await startServer(true);
    plain = await startServer(false);
  });
  afterAll(async () => {
    await streaming.close(100);
    await plain.close(100);
  });

  test('headers trickled past the headers timeout: 408 and the connection is closed', async () => {
    for (const server of [streaming, plain]) {
      const answer = await exchange(server.port, async (socket, closed) => {
        socket.write('GET /json HTTP/1.1\r\nHost: x\r\n');
        await trickle(socket, closed, 'X-Slow: y\r\n', 50, 200);
      });
      expect(answer.closed).toBe(true);
      expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
    }
  });

  test('a body trickled below the least rate: 408 body_timeout and the connection is closed', async () => {
    for (const path of ['/json', '/upload']) {
      const answer = await exchange(streaming.port, async (socket, closed) => {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n[`);
        await trickle(socket, closed, '1', 50, 200);
      });
      expect({ path, closed: answer.closed }).toEqual({ path, closed: true });
      expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer.text).toMatch(/\r\nconnection: close\r\n/i);
      expect(jsonBodyOf(answer.text).error).toMatchObject({ code: 'body_timeout', requestId: expect.any(String) });
    }
  });

  test('a body that stops: 408 body_timeout and the connection is closed', async () => {
    const answer = await exchange(streaming.port, async (socket) => {
      socket.write('PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n');
      socket.write('400\r\n');
      socket.write(Buffer.alloc(1024, 1));
      socket.write('\r\n');
    });
    expect(answer.closed).toBe(true);
    expect(jsonBodyOf(answer.text).error.code).toBe('body_timeout');
  });

  test('a listener without streamed uploads cuts off a trickled body at the request timeout', async () => {
    const answer = await exchange(plain.port, async (socket, closed) => {
      socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n');
      await trickle(socket, closed, Buffer.alloc(100, 1), 20, 1000);
    });
    expect(answer.closed).toBe(true);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('a JSON body sent fast enough for the least rate but not whole within its deadline: 408 body_timeout', async () => {
    const answer = await exchange(streaming.port, async (socket, closed) => {
      socket.write('POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n"');
      await trickle(socket, closed, 'a'.repeat(200), 20, 2500);
    });
    expect(answer.closed).toBe(true);
    expect(jsonBodyOf(answer.text).error).toMatchObject({ code: 'body_timeout', details: { timeoutMs: 1_000 } });
  });

  test('a large body that keeps progressing is received whole, also through windows in which the server held it back', async () => {
    const chunk = Buffer.alloc(16 * 1024, 7);
    const pieces = 120;
    const answer = await exchange(streaming.port, async (socket, closed) => {
      socket.write(
        `PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${chunk.length * pieces}\r\nConnection: close\r\n\r\n`,
      );
      await trickle(socket, closed, chunk, 15, pieces);
    });
    expect(answer.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(jsonBodyOf<{ bytes: number }>(answer.text)).toEqual({ bytes: chunk.length * pieces });
  });
});
