import { createHmac, randomBytes } from 'node:crypto';
import { callRpc, inTenantTransaction, newId, type NatsConnection, type RpcReply, type ServiceRuntime } from '@catalog/platform';
import { createTestDatabase, testBus, type TestDatabase } from '@catalog/testing';
import { projectTrack } from '../src/domain/track.js';
import { analysisFacts } from '../src/domain/analysis-facts.js';
import type { LibraryDb } from '../src/persistence/tables.js';
import { saveTrack } from '../src/persistence/tracks.js';
import { audioVersion, startTestLibrary, testEntity } from './fixtures.js';

/**
 * The track listing's `after` cursor (decision 0116) is signed and bound to
 * its tenant: a page resumes only from a sort value the library itself handed out. A forged,
 * altered, unsigned (v1) or other tenant's cursor is 400 invalid_cursor, never a database error
 * (a NUL in a title or a timestamp Postgres cannot hold was a 500).
 */
let database: TestDatabase;
let library: ServiceRuntime<LibraryDb>;
let bus: NatsConnection;
const [tenantId, otherTenant] = [newId(), newId()];
/** A 500-character title (the longest there is) of three-byte characters: a long cursor. */
const LONGEST_TITLE = '曲'.repeat(500);
const TITLES = ['Alpha', 'Beta', LONGEST_TITLE, 'Gamma', 'Delta'];

beforeAll(async () => {
  database = await createTestDatabase('librarycursor');
  library = await startTestLibrary(database);
  bus = await testBus('track-cursor-test', { user: 'gateway' });
  for (const [tenant, titles] of [
    [tenantId, TITLES],
    [otherTenant, ['Other']],
  ] as const) {
    for (const [n, title] of titles.entries()) {
      const id = newId();
      const version = audioVersion({ id: newId(), durationMs: 1000 * (n + 1) }, id);
      const outcome = projectTrack({ ...testEntity, id, title, artist: `Artist ${n}` }, [version], new Map(), analysisFacts({}));
      if (!('track' in outcome)) throw new Error('expected a track');
      await inTenantTransaction(library.database.db, tenant, (trx) => saveTrack(trx, tenant, outcome.track, []));
    }
  }
});
afterAll(async () => {
  await bus?.close();
  await library?.stop();
  await database?.drop();
});

/** `listTracks` as the gateway calls it, over NATS, for `tenant`. */
function list(query: Record<string, unknown>, tenant = tenantId): Promise<RpcReply> {
  const rpc = { nc: bus, subjects: library.subjects, callContext: library.callContext };
  const call = { tenantId: tenant, keyId: newId(), sourceSystem: 'test', requestId: newId(), permissions: ['library:api'] };
  return callRpc(rpc, 'library', 'listTracks', { params: {}, query, body: null }, call);
}

interface Page {
  tracks: Array<{ title: string }>;
  nextCursor: string | null;
}

async function page(query: Record<string, unknown>, tenant = tenantId): Promise<Page> {
  const reply = await list(query, tenant);
  if (!reply.ok) throw new Error(`listTracks: ${reply.error.status} ${reply.error.code} ${reply.error.message}`);
  return reply.body as Page;
}

const expectMalformed = async (query: Record<string, unknown>, label: string) => {
  const reply = await list(query);
  expect({ label, reply: reply.ok ? { status: reply.status } : { status: reply.error.status, code: reply.error.code } }).toEqual({
    label,
    reply: { status: 400, code: 'invalid_cursor' },
  });
};

/** A cursor as the listing wrote them before (v1: base64url JSON, unsigned), saying anything. */
const unsigned = (payload: Record<string, unknown>) => Buffer.from(JSON.stringify({ v: 1, ...payload })).toString('base64url');

test('every sort pages through all of the tenant’s tracks, the longest title included, with the cursors it hands out', async () => {
  for (const sort of ['title', 'artist', 'bpm', 'duration', 'updated']) {
    for (const order of ['asc', 'desc']) {
      const seen: string[] = [];
      let after: string | null = null;
      do {
        const next: Page = await page({ sort, order, limit: 1, ...(after ? { after } : {}) });
        seen.push(...next.tracks.map((t) => t.title));
        after = next.nextCursor;
      } while (after !== null);
      expect({ sort, order, seen: [...seen].sort() }).toEqual({ sort, order, seen: [...TITLES].sort() });
    }
  }
});

test('forged, unsigned and altered cursors are 400 invalid_cursor, never a database error', async () => {
  const [entityId] = [newId()];
  const forged: Array<[string, Record<string, unknown>]> = [
    ['NUL in a title', { s: 'title', o: 'a', q: '', k: 'a\u0000b', i: entityId }],
    ['time zone displacement out of range', { s: 'updated', o: 'd', q: '', k: '2020-01-01T00:00:00+23:59', i: entityId }],
    ['a year Postgres reads otherwise', { s: 'updated', o: 'd', q: '', k: '+275760-09-13T00:00:00Z', i: entityId }],
    ['a real out of range', { s: 'relevance', o: 'd', q: '', k: 1e300, i: entityId }],
    ['a valid-looking duration', { s: 'duration', o: 'a', q: '', k: 1000, i: entityId }],
    ['a valid-looking title', { s: 'title', o: 'a', q: '', k: 'beta', i: entityId }],
  ];
  for (const [label, payload] of forged) {
    const sort = payload.s === 'relevance' ? { q: 'alpha' } : { sort: payload.s, order: payload.o === 'd' ? 'desc' : 'asc' };
    await expectMalformed({ ...sort, after: unsigned(payload) }, label);
    await expectMalformed({ ...sort, after: unsigned({ ...payload, v: 2, t: tenantId }) }, `${label}, as v2 without a tag`);
  }
  // A genuine cursor, altered in any one character, or with its tag cut off.
  const { nextCursor } = await page({ sort: 'title', limit: 1 });
  for (let at = 0; at < nextCursor!.length; at += 7) {
    const swapped = nextCursor![at] === 'A' ? 'B' : 'A';
    await expectMalformed(
      { sort: 'title', after: `${nextCursor!.slice(0, at)}${swapped}${nextCursor!.slice(at + 1)}` },
      `altered at ${at}`,
    );
  }
  await expectMalformed({ sort: 'title', after: nextCursor!.slice(0, -22) }, 'tag cut off');
  // Random bytes and random JSON under any signature.
  for (let n = 0; n < 50; n++) {
    await expectMalformed({ sort: 'title', after: randomBytes(1 + n * 7).toString('base64url') }, `random ${n}`);
  }
  const data = Buffer.from(JSON.stringify({ v: 2, t: tenantId, s: 'title', o: 'a', q: '', k: '\u0000', i: entityId }));
  const tag = createHmac('sha256', 'not-the-secret').update(data).digest().subarray(0, 16);
  await expectMalformed({ sort: 'title', after: Buffer.concat([data, tag]).toString('base64url') }, 'signed with another key');
});

test('another tenant’s cursor is malformed here, as a forged one is', async () => {
  const { nextCursor } = await page({ sort: 'title', limit: 1 });
  expect(nextCursor).not.toBeNull();
  const reply = await list({ sort: 'title', after: nextCursor }, otherTenant);
  expect(reply.ok ? reply.status : { status: reply.error.status, code: reply.error.code }).toEqual({ status: 400, code: 'invalid_cursor' });
});
