import { cursorCodec } from '@catalog/platform';
import { eventually } from '@catalog/testing';
import { useSystem } from '../support/use-system.js';

/**
 * Feed cursors reveal nothing (decision 0152). Reproduction: the signed v1 cursors were readable
 * base64url JSON holding the feed's global transaction id, so the gap between two cursors of one
 * tenant told how much every other tenant had written in between (5, then 389 while another
 * tenant wrote).
 */
const SECRET = 'feed-cursor-contract-test-secret-0123456789';
const sut = useSystem({ database: true, env: { FEED_CURSOR_SECRET: SECRET } });
const FEED = '/api/v1/catalog/events?types=entity.created';

interface FeedEvent {
  id: string;
  resourceId: string;
}

/** The tenant's catalog feed after `after`, once it holds `count` events. */
async function feedOnce(key: string, count: number, after?: string): Promise<{ events: FeedEvent[]; nextCursor: string }> {
  return eventually(async () => {
    const query = after === undefined ? '' : `&after=${encodeURIComponent(after)}`;
    const page = await sut.api.request('GET', `${FEED}${query}`, { key });
    expect(page.status).toBe(200);
    return page.body.events.length === count ? page.body : undefined;
  }, 15_000);
}

async function createSongs(key: string, titles: string[]): Promise<string[]> {
  const created = await sut.api.request('POST', '/api/v1/catalog/entities/batch', {
    key,
    body: { entities: titles.map((title) => ({ type: 'song', title })) },
  });
  expect(created.status).toBe(201);
  return created.body.entities.map((e: { id: string }) => e.id);
}

async function txOf(eventId: string): Promise<string> {
  const { rows } = await sut.db.query<{ tx: string }>('select tx_id::text as tx from events.feed where id = $1', [eventId]);
  return rows[0]!.tx;
}

/** Every way the bytes of a token could carry `text`: as written, or as the bytes it stands for. */
function carries(token: string, text: string): boolean {
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.includes(Buffer.from(text, 'utf8'))) return true;
  if (/^[0-9a-f-]{36}$/.test(text)) return bytes.includes(Buffer.from(text.replace(/-/g, ''), 'hex'));
  const big = Buffer.alloc(8);
  big.writeBigUInt64BE(BigInt(text));
  return bytes.includes(big) || bytes.includes(big.subarray(4));
}

/** A cursor as the events service signed them before (v1): base64url JSON `{v, t, x, i}` and an HMAC. */
type V1Payload = { t: string; x: string; i: string };
const v1Signer = (secret: string) => cursorCodec<V1Payload>({ version: 1, secret, check: (p): p is V1Payload => typeof p.t === 'string' });
const v1 = v1Signer(SECRET);

describe('feed cursors reveal nothing', () => {
  test('neither the transaction counter, the tenant nor the event is in a cursor; its length does not follow the counter', async () => {
    const a = await sut.api.tenant();
    const b = await sut.api.tenant();
    await createSongs(a.key, ['A1']);
    const first = await feedOnce(a.key, 1);
    // Another tenant writes between two events of A's.
    for (let i = 0; i < 5; i += 1)
      await createSongs(
        b.key,
        Array.from({ length: 20 }, (_, n) => `B${i}.${n}`),
      );
    await createSongs(a.key, ['A2']);
    const second = await feedOnce(a.key, 1, first.nextCursor);
    for (const [page, cursor] of [
      [first, first.nextCursor],
      [second, second.nextCursor],
    ] as const) {
      const event = page.events[0]!;
      const tx = await txOf(event.id);
      expect([cursor, carries(cursor, tx)]).toEqual([cursor, false]);
      expect(carries(cursor, event.id)).toBe(false);
      expect(carries(cursor, a.orgId)).toBe(false);
      expect(() => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))).toThrow();
      expect(cursor).toMatch(/^[A-Za-z0-9_-]{1,100}$/);
    }
    expect(BigInt(await txOf(second.events[0]!.id)) - BigInt(await txOf(first.events[0]!.id))).toBeGreaterThan(5n);
    expect(second.nextCursor).toHaveLength(first.nextCursor.length);
  });

  test('a v1 cursor handed out before still pages where it left off, and the pages after it hand out v2 cursors', async () => {
    const { key, orgId } = await sut.api.tenant();
    await createSongs(key, ['One', 'Two', 'Three']);
    const all = await feedOnce(key, 3);
    const old = v1.encode({ t: orgId, x: await txOf(all.events[0]!.id), i: all.events[0]!.id });
    const resumed = await sut.api.request('GET', `${FEED}&after=${old}&limit=1`, { key });
    expect(resumed.status).toBe(200);
    expect(resumed.body.events.map((e: FeedEvent) => e.id)).toEqual([all.events[1]!.id]);
    // The next cursor is of the new version: its first byte says 2, and it opens only here.
    const next: string = resumed.body.nextCursor;
    expect(Buffer.from(next, 'base64url')[0]).toBe(2);
    expect(() => v1.decode(next)).toThrow();
    const rest = await sut.api.request('GET', `${FEED}&after=${next}`, { key });
    expect(rest.body.events.map((e: FeedEvent) => e.id)).toEqual([all.events[2]!.id]);
    expect(rest.body.nextCursor).toBe(all.nextCursor);
  });

  test('malformed, altered, cut, foreign-secret and other-tenant cursors, of either version, are 400 invalid_cursor', async () => {
    const a = await sut.api.tenant();
    const b = await sut.api.tenant();
    await createSongs(a.key, ['A']);
    await createSongs(b.key, ['B']);
    const { events, nextCursor } = await feedOnce(a.key, 1);
    const tx = await txOf(events[0]!.id);
    const middle = Math.floor(nextCursor.length / 2);
    const altered = `${nextCursor.slice(0, middle)}${nextCursor[middle] === 'A' ? 'B' : 'A'}${nextCursor.slice(middle + 1)}`;
    const otherSecret = v1Signer('another-feed-cursor-secret-0123456789');
    const refused: Array<[string, string]> = [
      ['not a cursor', a.key],
      ['AAAA', a.key],
      [altered, a.key],
      [nextCursor.slice(0, -2), a.key],
      [`${nextCursor}AA`, a.key],
      [nextCursor, b.key],
      [v1.encode({ t: a.orgId, x: tx, i: events[0]!.id }), b.key],
      [otherSecret.encode({ t: a.orgId, x: tx, i: events[0]!.id }), a.key],
    ];
    for (const [cursor, key] of refused) {
      const page = await sut.api.request('GET', `${FEED}&after=${encodeURIComponent(cursor)}`, { key });
      expect([cursor, page.status, page.body.error?.code]).toEqual([cursor, 400, 'invalid_cursor']);
    }
    // A's own cursor still reads.
    expect((await sut.api.request('GET', `${FEED}&after=${nextCursor}`, { key: a.key })).status).toBe(200);
  });
});
