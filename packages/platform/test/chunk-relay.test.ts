import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ChunkRelayError, relayChunks, releaseChunk, serviceNodeFlags } from '../src/index.js';

const MiB = 1024 * 1024;
const platformDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const relayModule = pathToFileURL(join(platformDir, 'src', 'http', 'chunk-relay.ts')).href;

const listen = (server: Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

/** Writes `pattern` into `out` again and again up to `total` bytes, with back-pressure, then ends it. */
function writeRepeated(out: Writable, pattern: Buffer, total: number): void {
  let sent = 0;
  const more = (): void => {
    while (sent < total) {
      sent += pattern.length;
      if (!out.write(pattern)) return void out.once('drain', more);
    }
    out.end();
  };
  more();
}

/** A writable that takes `delayMs` per chunk and keeps what it got. */
function slowSink(delayMs: number): Writable & { received: Buffer[] } {
  const received: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 4,
    objectMode: false,
    write(chunk: Buffer, _encoding, callback) {
      received.push(Buffer.from(chunk));
      setTimeout(callback, delayMs);
    },
  });
  return Object.assign(sink, { received });
}

describe('relayChunks: a back-pressured relay', () => {
  test('every byte arrives in order and the destination ends', async () => {
    const chunks = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000, i));
    // Copied first: the relay gives each written chunk's memory back (the chunks read as empty after).
    const expected = Buffer.concat(chunks);
    const sink = slowSink(0);
    await relayChunks(Readable.from(chunks), sink).finished;
    expect(Buffer.concat(sink.received)).toEqual(expected);
    expect(sink.writableFinished).toBe(true);
  });

  test('a slow destination pauses the source instead of buffering it', async () => {
    const source = new PassThrough({ highWaterMark: 1024 });
    const sink = slowSink(5);
    const relay = relayChunks(source, sink);
    let accepted = 0;
    for (let i = 0; i < 200 && source.write(Buffer.alloc(1024, 1)); i++) accepted++;
    expect(accepted).toBeLessThan(20);
    source.end();
    await relay.finished;
  });

  test('a destination that closes early destroys the source and rejects on the destination side', async () => {
    const source = new PassThrough();
    const sink = new PassThrough();
    const relay = relayChunks(source, sink);
    source.write('first');
    sink.destroy();
    await expect(relay.finished).rejects.toMatchObject({ side: 'destination' });
    expect(source.destroyed).toBe(true);
  });

  test('with destroySource: false the source is only paused (a request still to be answered)', async () => {
    const source = new PassThrough();
    const sink = new PassThrough();
    const relay = relayChunks(source, sink, { destroySource: false });
    sink.destroy(new Error('upstream went away'));
    await expect(relay.finished).rejects.toBeInstanceOf(ChunkRelayError);
    expect(source.destroyed).toBe(false);
    expect(source.isPaused()).toBe(true);
  });

  test('a failing source destroys the destination and rejects on the source side', async () => {
    const source = new PassThrough();
    const sink = new PassThrough();
    sink.resume();
    const relay = relayChunks(source, sink);
    source.destroy(new Error('disk read failed'));
    await expect(relay.finished).rejects.toMatchObject({ side: 'source', cause: { message: 'disk read failed' } });
    expect(sink.destroyed).toBe(true);
  });

  test('stop() detaches like unpipe: later chunks stay with the source', async () => {
    const source = new PassThrough();
    const sink = slowSink(0);
    const relay = relayChunks(source, sink);
    source.write('kept');
    await new Promise((resolve) => setImmediate(resolve));
    relay.stop();
    source.write('not relayed');
    await relay.finished;
    expect(Buffer.concat(sink.received).toString()).toBe('kept');
    expect(sink.writableEnded).toBe(false);
  });

  test('releaseChunk detaches a chunk that is its whole buffer, never a slice of a shared one', () => {
    const whole = Buffer.alloc(64 * 1024, 7);
    const slice = Buffer.alloc(64 * 1024, 8).subarray(1);
    releaseChunk(whole);
    releaseChunk(slice);
    expect(whole.length).toBe(0);
    expect(slice.length).toBe(64 * 1024 - 1);
  });
});

/**
 * A proxy process started with the streaming services' flags (serviceNodeFlags('gateway')) that
 * relays one upload and one download the way the gateway does; it reports the most external
 * (off-heap) memory it held while doing so.
 */
const PROXY_SCRIPT = `
import http from 'node:http';
import { getHeapStatistics } from 'node:v8';
import { canReleaseChunks, relayChunks, releaseChunk, releaseSocketReads } from '${relayModule}';
const upstreamPort = Number(process.argv[2]);
let peakExternal = 0;
const sample = setInterval(() => { peakExternal = Math.max(peakExternal, getHeapStatistics().external_memory); }, 2);
const probe = { whole: Buffer.alloc(65536, 1), pooled: Buffer.from('a pooled slice'), view: Buffer.alloc(65536, 2).subarray(1) };
for (const chunk of Object.values(probe)) releaseChunk(chunk);
const released = Object.fromEntries(Object.entries(probe).map(([name, chunk]) => [name, chunk.length === 0]));
const server = http.createServer((req, res) => {
  if (req.url === '/stats') return res.end(JSON.stringify({ canReleaseChunks, released, peakExternal, idleExternal }));
  const upstream = http.request({ port: upstreamPort, host: '127.0.0.1', method: req.method, path: req.url, headers: req.headers, agent: req.method === 'GET' ? false : undefined });
  if (req.method === 'GET') upstream.once('socket', (socket) => releaseSocketReads(socket));
  upstream.on('response', (answer) => { res.writeHead(answer.statusCode, answer.headers); relayChunks(answer, res).finished.catch(() => undefined); });
  if (req.method === 'GET') upstream.end(); else relayChunks(req, upstream, { destroySource: false }).finished.catch(() => undefined);
});
let idleExternal = 0;
server.listen(0, '127.0.0.1', () => { idleExternal = getHeapStatistics().external_memory; peakExternal = idleExternal; console.log(server.address().port); });
process.on('SIGTERM', () => { clearInterval(sample); server.close(); });
`;

describe('in a process started with the streaming services’ flags', () => {
  const TOTAL = 256 * MiB;
  let scratch: string;
  let proxy: ChildProcess;
  let proxyPort: number;
  let origin: Server;
  let uploadedSha = '';
  let uploadedBytes = 0;
  const pattern = Buffer.alloc(MiB);
  for (let i = 0; i < pattern.length; i++) pattern[i] = (i * 31) % 251;

  beforeAll(async () => {
    // The origin: hashes PUT bodies, serves TOTAL bytes of the pattern on GET.
    origin = createServer((req, res) => {
      if (req.method === 'PUT') {
        const hash = createHash('sha256');
        req.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          uploadedBytes += chunk.length;
        });
        req.on('end', () => {
          uploadedSha = hash.digest('hex');
          res.end('stored');
        });
        return;
      }
      res.writeHead(200, { 'content-length': TOTAL });
      writeRepeated(res, pattern, TOTAL);
    });
    const originPort = await listen(origin);
    scratch = mkdtempSync(join(tmpdir(), 'chunk-relay-'));
    const script = join(scratch, 'proxy.mjs');
    writeFileSync(script, PROXY_SCRIPT);
    proxy = spawn(
      process.execPath,
      [...serviceNodeFlags('gateway'), '--conditions=source', '--import', 'tsx', script, String(originPort)],
      {
        cwd: platformDir,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    proxyPort = await new Promise<number>((resolve, reject) => {
      proxy.once('exit', (code) => reject(new Error(`the proxy exited ${code}`)));
      proxy.stdout!.once('data', (data: Buffer) => resolve(Number(data.toString().trim())));
    });
  }, 30_000);

  afterAll(async () => {
    proxy?.kill('SIGTERM');
    await new Promise<void>((resolve) => origin?.close(() => resolve()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const stats = async (): Promise<{
    canReleaseChunks: boolean;
    released: Record<string, boolean>;
    peakExternal: number;
    idleExternal: number;
  }> => {
    const response = await fetch(`http://127.0.0.1:${proxyPort}/stats`);
    return (await response.json()) as Awaited<ReturnType<typeof stats>>;
  };

  test('chunks can be released, and only chunks that are a whole buffer of their own', async () => {
    const { canReleaseChunks, released } = await stats();
    expect(canReleaseChunks).toBe(true);
    expect(released).toEqual({ whole: true, pooled: false, view: false });
  });

  test('256 MiB up and down through the relay arrive intact, with little off-heap memory held at any time', async () => {
    const expected = createHash('sha256');
    for (let sent = 0; sent < TOTAL; sent += pattern.length) expected.update(pattern);
    const expectedSha = expected.digest('hex');

    await new Promise<void>((resolve, reject) => {
      const upload = request(
        { port: proxyPort, host: '127.0.0.1', method: 'PUT', path: '/file', headers: { 'content-length': TOTAL } },
        (answer) => {
          answer.resume();
          answer.on('end', resolve);
        },
      );
      upload.on('error', reject);
      writeRepeated(upload, pattern, TOTAL);
    });
    expect({ uploadedBytes, uploadedSha }).toEqual({ uploadedBytes: TOTAL, uploadedSha: expectedSha });

    const downloaded = createHash('sha256');
    let downloadedBytes = 0;
    await new Promise<void>((resolve, reject) => {
      request({ port: proxyPort, host: '127.0.0.1', path: '/file' }, (answer: IncomingMessage) => {
        answer.on('data', (chunk: Buffer) => {
          downloaded.update(chunk);
          downloadedBytes += chunk.length;
        });
        answer.on('end', resolve);
        answer.on('error', reject);
      })
        .on('error', reject)
        .end();
    });
    expect({ downloadedBytes, sha: downloaded.digest('hex') }).toEqual({ downloadedBytes: TOTAL, sha: expectedSha });

    // Released: ~0.1 MiB above idle at the worst moment. Without releasing (the same relays with
    // releaseChunk made a no-op, and no releaseSocketReads), spent chunks piled up to ~32 MiB before V8 collected them.
    const { peakExternal, idleExternal } = await stats();
    expect((peakExternal - idleExternal) / MiB).toBeLessThan(8);
  }, 120_000);
});
