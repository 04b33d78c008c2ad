import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { eventually } from '@catalog/testing';
import { s3BlobStore } from '../support/s3.js';
import { useSystem, type SystemUnderTest } from '../support/use-system.js';

/**
 * Confirming a large file answers within the gateway's timeout, on either backend (decision
 * 0148): on fs the bytes were hashed while they arrived, so confirm reads nothing; on s3 the
 * object is read once, by a verification that goes on when a confirmation stops waiting for it
 * (503 `confirmation_in_progress`), and a confirmation repeated meanwhile or afterwards answers
 * that same verification's outcome: never a 504, never a 409, one `asset.confirmed`.
 */
const GiB = 1024 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024);

/** A 16-bit mono 8 kHz PCM WAV of `bytes` bytes in all (silence), generated as it is read. */
function silentWav(bytes: number): Readable {
  const data = bytes - 44;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(bytes - 8, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8_000, 24);
  header.writeUInt32LE(16_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data, 40);
  return Readable.from(
    (function* chunks() {
      yield header;
      for (let left = data; left > 0; left -= CHUNK.length) yield left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
    })(),
  );
}

/** PUTs `bytes` of silent WAV to an upload target, streamed; resolves with the answer's status. */
function putWav(upload: { url: string; headers: Record<string, string> }, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(upload.url, { method: 'PUT', headers: { ...upload.headers, 'content-length': String(bytes) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    pipeline(silentWav(bytes), req).catch(reject);
  });
}

/** Uploads a 1 GiB WAV as a standalone file: the asset's id. */
async function uploaded(sut: SystemUnderTest, key: string): Promise<string> {
  const created = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'long.wav', contentType: 'audio/wav', size: GiB } },
  });
  expect(created.status).toBe(201);
  expect(await putWav(created.body.upload, GiB)).toBe(200);
  return created.body.id;
}

/** One answer of a confirmation, as a client sees it. */
interface ConfirmAnswer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

/**
 * Confirms again while the answer is "still being verified", as a client that retries does: the
 * answers before the last, and the last (settled) one.
 */
async function confirmUntilSettled(sut: SystemUnderTest, key: string, id: string) {
  const waiting: ConfirmAnswer[] = [];
  for (;;) {
    const answer = await sut.api.request('POST', `/api/v1/catalog/assets/${id}/confirm`, { key });
    if (answer.body.error?.code !== 'confirmation_in_progress') return { waiting, settled: answer };
    waiting.push({ status: answer.status, code: answer.body.error.code, retryAfter: answer.headers.get('retry-after') });
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** What every "still being verified" answer is. */
const IN_PROGRESS: ConfirmAnswer = { status: 503, code: 'confirmation_in_progress', retryAfter: expect.stringMatching(/^\d+$/) };

/** The `asset.confirmed` events of asset `id` in the tenant's feed, once there is one. */
const confirmedEvents = (sut: SystemUnderTest, key: string, id: string): Promise<number> =>
  eventually(async () => {
    const page = await sut.api.request('GET', '/api/v1/catalog/events?types=asset.confirmed', { key });
    const count = (page.body.events as { resourceId: string | null }[]).filter((event) => event.resourceId === id).length;
    return count > 0 ? count : undefined;
  }, 30_000);

describe('a 1 GiB confirm on fs', () => {
  // The gateway's own timeouts (RPC_TIMEOUT_MS 10 s), not the patient ones of the analysis tests.
  const sut = useSystem();

  test('answers ONLINE, however often it is confirmed', async () => {
    const { key } = await sut.api.tenant();
    const id = await uploaded(sut, key);
    const { waiting, settled } = await confirmUntilSettled(sut, key, id);
    expect(waiting).toEqual(waiting.map(() => IN_PROGRESS));
    expect({ status: settled.status, error: settled.body.error }).toEqual({ status: 200, error: undefined });
    expect(settled.body).toMatchObject({ status: 'ONLINE', size: GiB, durationMs: expect.any(Number) });
    const again = await sut.api.request('POST', `/api/v1/catalog/assets/${id}/confirm`, { key });
    expect(again.body).toEqual(settled.body);
  }, 120_000);
});

describe('a 1 GiB confirm on s3, a confirmation waiting 300 ms for the verification', () => {
  // The object is read by the verification, far longer than a confirmation waits for it. The
  // gateway waits its default 10 s: the services run in this one process, whose event loop the
  // verification shares, and beside a CPU hog an answer sent after 300 ms reached it after 3 s.
  const sut = useSystem({ env: { ...s3BlobStore(), ASSET_CONFIRM_WAIT_MS: '300' } });

  test('answers "being verified" until it answers ONLINE, then the same ONLINE; confirmed once', async () => {
    const { key } = await sut.api.tenant();
    const id = await uploaded(sut, key);
    // Two clients confirm at once and retry, as after a timeout.
    const [first, second] = await Promise.all([confirmUntilSettled(sut, key, id), confirmUntilSettled(sut, key, id)]);
    // No machine reads, hashes and copies 1 GiB within the 300 ms a confirmation waits: each client was told to confirm again.
    expect(first.waiting.length).toBeGreaterThan(0);
    for (const { waiting, settled } of [first, second]) {
      expect(waiting).toEqual(waiting.map(() => IN_PROGRESS));
      expect({ status: settled.status, error: settled.body.error }).toEqual({ status: 200, error: undefined });
      expect(settled.body).toMatchObject({ status: 'ONLINE', size: GiB, durationMs: expect.any(Number) });
    }
    expect(second.settled.body).toEqual(first.settled.body);
    const again = await sut.api.request('POST', `/api/v1/catalog/assets/${id}/confirm`, { key });
    expect(again.body).toEqual(first.settled.body);
    expect(await confirmedEvents(sut, key, id)).toBe(1);
  }, 120_000);
});
