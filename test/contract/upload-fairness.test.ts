import { connect, type Socket } from 'node:net';
import { eventually } from '@catalog/testing';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';

/**
 * Slow uploads of one tenant do not hold the others' (decision 0148), on the fs backend whose
 * uploads go through the gateway: with 256 slow PUTs of tenant A open (each about 320 B/s, above
 * the least body rate, so none is cut off for it), A has at most its cap in flight (the others
 * are refused with 429 and Retry-After), tenant B's small upload goes through and is confirmed,
 * and an upload that brings no byte any more is ended with 408.
 */
const IDLE_MS = 3_000;
const CAP = 16;
const SLOW_PUTS = 256;
const sut = useSystem({
  env: { ...PATIENT_CALLS, UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS), UPLOAD_MAX_IN_FLIGHT_PER_TENANT: String(CAP) },
});

interface Answer {
  status: number;
  head: string;
  body: string;
}

/** A PUT written by hand to the gateway, whose body is sent only when `send` is called. */
interface OpenPut {
  socket: Socket;
  /** The answer once its head and body have arrived (null: the connection closed without one). */
  answer: Promise<Answer | null>;
  answered(): boolean;
  send(bytes: Buffer): void;
}

function openPut(port: number, uploadUrl: string, contentType: string, contentLength: number): OpenPut {
  const { pathname, search } = new URL(uploadUrl);
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let text = '';
  let parsed: Answer | null = null;
  const answer = new Promise<Answer | null>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0 || parsed) return;
      const head = text.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (text.length - end - 4 < length) return;
      parsed = { status: Number(head.slice(9, 12)), head, body: text.slice(end + 4, end + 4 + length) };
      resolve(parsed);
    });
    socket.on('close', () => resolve(parsed));
  });
  socket.write(
    `PUT ${pathname}${search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\nContent-Length: ${contentLength}\r\n\r\n`,
  );
  return {
    socket,
    answer,
    answered: () => parsed !== null,
    send(bytes) {
      if (!socket.destroyed && !socket.writableEnded) socket.write(bytes);
    },
  };
}

async function createUpload(key: string): Promise<{ id: string; upload: { url: string; headers: Record<string, string> } }> {
  const created = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'cover.png', contentType: 'image/png' } },
  });
  expect(created.status).toBe(201);
  return created.body;
}

test("256 slow uploads of one tenant: beyond its cap 429, another tenant's upload goes through, an idle upload is ended", async () => {
  const { api, system } = sut;
  const port = Number(new URL(system.baseUrl).port);
  const a = await api.tenant({ name: 'Slow uploads' });
  const b = await api.tenant({ name: 'Small upload' });
  const targets = await Promise.all(Array.from({ length: 4 }, () => createUpload(a.key)));

  const slow = Array.from({ length: SLOW_PUTS }, (_, i) => openPut(port, targets[i % targets.length]!.upload.url, 'image/png', 1 << 20));
  // About 320 B/s each, 80 KB/s in all: slow, but never too slow for the listener's least body rate.
  const trickle = setInterval(() => {
    for (const put of slow) if (!put.answered()) put.send(Buffer.alloc(64, 1));
  }, 200);
  try {
    // Beyond the cap, A's uploads are refused at once, with Retry-After.
    const refused = await eventually(async () => {
      const answered = slow.filter((put) => put.answered());
      return answered.length >= SLOW_PUTS - CAP ? answered : undefined;
    }, 30_000);
    const answers = (await Promise.all(refused.map((put) => put.answer))).filter((answer) => answer !== null);
    expect(answers).toHaveLength(SLOW_PUTS - CAP);
    for (const answer of answers) {
      expect({ status: answer.status, code: JSON.parse(answer.body).error.code }).toEqual({ status: 429, code: 'too_many_uploads' });
      expect(answer.head).toMatch(/\r\nretry-after: *\d+/i);
    }

    // B's 40 bytes go through while A's uploads hold their slots, and B confirms them.
    const small = await createUpload(b.key);
    const put = await fetch(small.upload.url, {
      method: 'PUT',
      headers: small.upload.headers,
      body: Buffer.alloc(40, 2),
      signal: AbortSignal.timeout(20_000),
    });
    expect(put.status).toBe(200);
    const confirmed = await api.request('POST', `/api/v1/catalog/assets/${small.id}/confirm`, { key: b.key });
    expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: 40 });
    expect(slow.filter((upload) => !upload.answered())).toHaveLength(CAP);

    // An upload that stops sending is ended with 408 (B's, so A's cap is not in the way).
    const idle = await createUpload(b.key);
    const stalled = openPut(port, idle.upload.url, 'image/png', 100);
    stalled.send(Buffer.alloc(10, 3));
    const ended = await stalled.answer;
    expect({ status: ended?.status, code: ended && JSON.parse(ended.body).error.code }).toEqual({ status: 408, code: 'body_timeout' });
    // A's slow uploads, still sending, are not.
    expect(slow.filter((upload) => !upload.answered())).toHaveLength(CAP);
  } finally {
    clearInterval(trickle);
    for (const put of slow) put.socket.destroy();
  }
}, 90_000);
