import type { ListTracksQuery, TrackSummary } from '@catalog/contracts';
import { inTenantTransaction, migrateSchema, newId, SCHEMA_OWNER_ROLE } from '@catalog/platform';
import { createTestDatabase, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { trackCursors } from '../src/domain/track-cursor.js';
import { listTracks } from '../src/domain/track-listing.js';
import { libraryMigrations } from '../src/migrations/index.js';
import { deleteTrack, saveTrack } from '../src/persistence/tracks.js';
import { searchableTrack as track, startTestLibrary } from './fixtures.js';

/**
 * sort=relevance ranks from the words' weights in `library.track_words` (decision 0169): one
 * word's rank is `ts_rank`'s, several words rank as `ts_rank` of them OR-ed (among the tracks
 * holding all of them), and keyset pages walk that order without gaps or repeats.
 */
let database: TestDatabase;
let admin: pg.Client;
let runtime: Awaited<ReturnType<typeof startTestLibrary>>;
const cursors = trackCursors('search-relevance-test-cursor-secret');

beforeAll(async () => {
  database = await createTestDatabase('libraryrelevance');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await runtime?.stop();
  await admin.end();
  await database.drop();
});

/** Words whose stored weight is not `ts_rank` of their track's `search` for that word alone. */
async function wrongWeights(): Promise<unknown[]> {
  const { rows } = await admin.query(
    `select w.entity_id, w.word, w.weight from library.track_words w join library.tracks t using (tenant_id, entity_id)
      where w.weight <> ts_rank(t.search, to_tsquery('simple', w.word))`,
  );
  return rows;
}

/** The tenant's tracks holding every word of `q` (the last as a prefix), ranked as decision 0169 says. */
async function expectedOrder(tenantId: string, q: string, where = 'true'): Promise<string[]> {
  const words = q.split(' ');
  const terms = words.map((w, i) => (i === words.length - 1 ? `${w}:*` : w));
  const { rows } = await admin.query(
    `select entity_id from library.tracks
      where tenant_id = $1 and search @@ to_tsquery('simple', $2) and ${where}
      order by ts_rank(search, to_tsquery('simple', $3)) desc, entity_id desc`,
    [tenantId, terms.join(' & '), terms.join(' | ')],
  );
  return rows.map((r: { entity_id: string }) => r.entity_id);
}

/** Every page of a relevance search, `limit` at a time; the ids in the order given. */
async function walk(tenantId: string, query: ListTracksQuery, limit: number): Promise<string[]> {
  const db = runtime.database.db;
  const found: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const result = await listTracks({ db, cursors }, tenantId, { ...query, limit, ...(after ? { after } : {}) }, 1_000_000);
    found.push(...result.tracks.map((t: TrackSummary) => t.entityId));
    if (!result.hasMore) return found;
    expect(result.tracks).toHaveLength(limit);
    after = result.nextCursor!;
  }
  throw new Error('too many pages');
}

test('the words’ weights are copied in for existing tracks and follow every write', async () => {
  const owner = database.urlAs(SCHEMA_OWNER_ROLE);
  const upTo0013 = Object.fromEntries(Object.entries(libraryMigrations).filter(([name]) => name < '0014'));
  await migrateSchema({ url: owner, schema: 'library', role: 'library_app', migrations: upTo0013 });
  const [tenantId, before] = [newId(), newId()];
  await admin.query(
    `insert into library.tracks (tenant_id, entity_id, entity_type, title_sort, has_dmrn, search, summary, detail, listed_at, updated_at)
     values ($1, $2, 'song', 'love me love', false,
             setweight(to_tsvector('simple', 'love me love'), 'A') || setweight(to_tsvector('simple', 'me'), 'B'), '{}', '{}', now(), now())`,
    [tenantId, before],
  );
  await migrateSchema({ url: owner, schema: 'library', role: 'library_app', migrations: libraryMigrations });
  const { rows } = await admin.query(`select word, weight from library.track_words where entity_id = $1 order by word`, [before]);
  expect(rows.map((r: { word: string }) => r.word)).toEqual(['love', 'me']);
  expect(await wrongWeights()).toEqual([]);

  runtime = await startTestLibrary(database);
  const db = runtime.database.db;
  const save = (t: ReturnType<typeof track>) => inTenantTransaction(db, tenantId, (trx) => saveTrack(trx, tenantId, t, []));
  const [a, b] = [newId(), newId()];
  await save(track(a, 'Blue Monday', 'New Order'));
  await save(track(b, 'Monday Monday', 'Blue Mamas'));
  expect(await wrongWeights()).toEqual([]);
  // An artist's word moves into the title, a word is repeated, the tempo changes: weights follow.
  await save(track(a, 'Blue Order Order', 'New Order', { bpm: 120 }));
  await save(track(b, 'Monday', 'Blue Mamas Monday'));
  expect(await wrongWeights()).toEqual([]);
  // Words that only move along (positions change, their weights do not) keep their weight.
  await save(track(a, 'Dark Blue Order Order', 'New Order', { bpm: 120 }));
  expect(await wrongWeights()).toEqual([]);
  const { rows: orderRows } = await admin.query(`select weight from library.track_words where entity_id = $1 and word = 'order'`, [a]);
  expect(orderRows).toHaveLength(1);
  await inTenantTransaction(db, tenantId, (trx) => deleteTrack(trx, tenantId, b));
  expect((await admin.query(`select 1 from library.track_words where entity_id = $1`, [b])).rowCount).toBe(0);
  expect(await wrongWeights()).toEqual([]);
});

test('relevance is ts_rank for one word, ts_rank of the words OR-ed for several, and pages walk it without gaps or repeats', async () => {
  const db = runtime.database.db;
  const tenantId = newId();
  const save = (t: ReturnType<typeof track>) => inTenantTransaction(db, tenantId, (trx) => saveTrack(trx, tenantId, t, []));
  const titles: Array<[string, string | null]> = [
    ['Love Love Love', 'The Beatles'],
    ['Love Song', 'Sara Bareilles'],
    ['Lovely Day', 'Bill Withers'],
    ['Song for Love', 'Lovers Rock'],
    ['Summer Song', 'Love Inc'],
    ['Lonely Love', 'Lovin Spoonful'],
    ['Night Song', null],
    ['Loving You', 'Minnie Riperton'],
  ];
  // Ties: the same title many times (equal ranks, ordered by entity id).
  for (let i = 0; i < 12; i += 1) titles.push(['Love Song', 'Many Times']);
  for (const [title, artist] of titles) await save(track(newId(), title, artist, { bpm: 100 }));

  for (const q of ['love', 'lov', 'lo', 'song', 'love so', 'song lov', 'love love lo', 'love song many t']) {
    const expected = await expectedOrder(tenantId, q);
    expect(expected.length).toBeGreaterThan(0);
    for (const limit of [1, 3, 7, 50])
      expect({ q, limit, found: await walk(tenantId, { q }, limit) }).toEqual({ q, limit, found: expected });
  }
  expect(await walk(tenantId, { q: 'love zzz' }, 5)).toEqual([]);
});

test('relevance pages stay full when the tracks’ own filters skip the best-ranked ones', async () => {
  const db = runtime.database.db;
  const tenantId = newId();
  const save = (t: ReturnType<typeof track>) => inTenantTransaction(db, tenantId, (trx) => saveTrack(trx, tenantId, t, []));
  // The best matches are older than updatedSince (a filter `track_words` has no copy of).
  for (let i = 0; i < 10; i += 1) await save(track(newId(), 'Echo Echo Echo', 'Old', { updatedAt: '2025-01-01T00:00:00.000Z' }));
  for (let i = 0; i < 10; i += 1) await save(track(newId(), 'Echo Beach', 'Martha', { updatedAt: '2026-06-01T00:00:00.000Z' }));
  for (let i = 0; i < 10; i += 1) await save(track(newId(), 'Beach House', 'Echo', { updatedAt: '2026-06-01T00:00:00.000Z' }));
  const since = '2026-03-01T00:00:00.000Z';
  const expected = await expectedOrder(tenantId, 'ech', `updated_at >= '${since}'`);
  expect(expected).toHaveLength(20);
  for (const limit of [4, 19]) expect(await walk(tenantId, { q: 'ech', updatedSince: since }, limit)).toEqual(expected);
});
