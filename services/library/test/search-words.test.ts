import type { TrackSummary } from '@catalog/contracts';
import { createDatabase, inTenantTransaction, migrateSchema, newId, SCHEMA_OWNER_ROLE, sql } from '@catalog/platform';
import { createTestDatabase, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { trackCursors } from '../src/domain/track-cursor.js';
import { listTracks } from '../src/domain/track-listing.js';
import { libraryMigrations } from '../src/migrations/index.js';
import type { LibraryDb } from '../src/persistence/tables.js';
import { deleteTrack, saveTrack } from '../src/persistence/tracks.js';
import { searchableTrack as track, startTestLibrary } from './fixtures.js';

/**
 * The words of the tracks' `search` in `library.track_words` (decision 0105): kept by a trigger on
 * every write, copied in for the tracks there were, and what `q` selects tracks through.
 */
let database: TestDatabase;
let admin: pg.Client;
const cursors = trackCursors('search-words-test-cursor-secret');

beforeAll(async () => {
  database = await createTestDatabase('librarywords');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

async function wordsOf(tenantId: string, entityId: string): Promise<string[]> {
  const { rows } = await admin.query('select word from library.track_words where tenant_id = $1 and entity_id = $2 order by word', [
    tenantId,
    entityId,
  ]);
  return rows.map((r: { word: string }) => r.word);
}

/** The distinct filter columns the words of a track hold (one row when they agree). */
async function copiesOf(tenantId: string, entityId: string): Promise<unknown[]> {
  const { rows } = await admin.query(
    `select distinct entity_type, has_dmrn, duration_ms, bpm, camelot, integrated_lufs
       from library.track_words where tenant_id = $1 and entity_id = $2`,
    [tenantId, entityId],
  );
  return rows;
}

test('the words follow every write of a track, existing tracks are copied in, and q finds tracks through them', async () => {
  const [tenantId, otherTenant] = [newId(), newId()];
  const [before, a, b, c, foreign] = [newId(), newId(), newId(), newId(), newId()];

  // A track stored before the words table existed is copied in by the migration.
  const owner = database.urlAs(SCHEMA_OWNER_ROLE);
  const upTo0005 = Object.fromEntries(Object.entries(libraryMigrations).filter(([name]) => name < '0006'));
  await migrateSchema({ url: owner, schema: 'library', role: 'library_app', migrations: upTo0005 });
  const old = track(before, 'Golden Hour', 'Kacey');
  await admin.query(
    `insert into library.tracks (tenant_id, entity_id, entity_type, title_sort, has_dmrn, search, summary, detail, listed_at, updated_at)
     values ($1, $2, 'song', 'golden hour', false, setweight(to_tsvector('simple', 'golden hour'), 'A') || setweight(to_tsvector('simple', 'kacey'), 'B'),
             $3, $4, now(), now())`,
    [tenantId, before, JSON.stringify(old.summary), JSON.stringify(old.detail)],
  );
  await migrateSchema({ url: owner, schema: 'library', role: 'library_app', migrations: libraryMigrations });
  expect(await wordsOf(tenantId, before)).toEqual(['golden', 'hour', 'kacey']);
  // Migration 0010 gave the words the track's filter columns.
  expect(await copiesOf(tenantId, before)).toEqual([
    { entity_type: 'song', has_dmrn: false, duration_ms: null, bpm: null, camelot: null, integrated_lufs: null },
  ]);

  const runtime = await startTestLibrary(database);
  const db = runtime.database.db;
  const save = (tenant: string, t: ReturnType<typeof track>) => inTenantTransaction(db, tenant, (trx) => saveTrack(trx, tenant, t, []));
  const titles = async (q: string, extra: Record<string, unknown> = {}) =>
    (await listTracks({ db, cursors }, tenantId, { q, sort: 'title', ...extra }, 1_000_000)).tracks.map((t: TrackSummary) => t.title);
  try {
    await save(tenantId, track(a, 'Golden Brown', 'The Stranglers'));
    await save(tenantId, track(b, 'Brown Eyed Girl', 'Van Morrison'));
    await save(tenantId, track(c, 'Café del Mar', 'Energy 52'));
    await save(otherTenant, track(foreign, 'Golden Years', 'Bowie'));
    expect(await wordsOf(tenantId, a)).toEqual(['brown', 'golden', 'stranglers', 'the']);

    expect(await titles('golden')).toEqual(['Golden Brown', 'Golden Hour']);
    expect(await titles('gol')).toEqual(['Golden Brown', 'Golden Hour']);
    expect(await titles('brown gol')).toEqual(['Golden Brown']);
    expect(await titles('golden br')).toEqual(['Golden Brown']);
    expect(await titles('bro')).toEqual(['Brown Eyed Girl', 'Golden Brown']);
    expect(await titles('cafe ENER')).toEqual(['Café del Mar']);
    // Every word but the last must occur whole; no infix.
    expect(await titles('gold hour')).toEqual([]);
    expect(await titles('olden')).toEqual([]);
    // Relevance: title words before artist words, pages walk the same set.
    const first = await listTracks({ db, cursors }, tenantId, { q: 'bro', limit: 1 }, 1_000_000);
    const second = await listTracks({ db, cursors }, tenantId, { q: 'bro', limit: 1, after: first.nextCursor! }, 1_000_000);
    expect([...first.tracks, ...second.tracks].map((t) => t.title).sort()).toEqual(['Brown Eyed Girl', 'Golden Brown']);
    expect(second.hasMore).toBe(false);

    // A changed title: its old words go, its new ones come; the other tenant's words never show.
    await save(tenantId, track(a, 'Silver Brown', 'The Stranglers'));
    expect(await wordsOf(tenantId, a)).toEqual(['brown', 'silver', 'stranglers', 'the']);
    expect(await titles('golden')).toEqual(['Golden Hour']);
    expect(await titles('silv')).toEqual(['Silver Brown']);
    expect(await titles('years')).toEqual([]);

    // A removed track leaves no words.
    await inTenantTransaction(db, tenantId, (trx) => deleteTrack(trx, tenantId, a));
    expect(await wordsOf(tenantId, a)).toEqual([]);
    expect(await titles('bro')).toEqual(['Brown Eyed Girl']);
  } finally {
    await runtime.stop();
  }
});

test('the words carry copies of their track’s filter columns, which follow it, and q with filters finds what the tracks hold', async () => {
  const runtime = await startTestLibrary(database);
  const db = runtime.database.db;
  const tenantId = newId();
  const [slow, fast] = [newId(), newId()];
  const save = (t: ReturnType<typeof track>) => inTenantTransaction(db, tenantId, (trx) => saveTrack(trx, tenantId, t, []));
  const titles = async (q: string, extra: Record<string, unknown>) =>
    (await listTracks({ db, cursors }, tenantId, { q, sort: 'title', ...extra }, 1_000_000)).tracks.map((t: TrackSummary) => t.title);
  try {
    await save(track(slow, 'Night Drive', 'Kavinsky', { bpm: 90 }));
    await save(track(fast, 'Night Fever', 'Bee Gees', { bpm: 128 }));
    expect(await copiesOf(tenantId, slow)).toEqual([expect.objectContaining({ entity_type: 'song', bpm: 90, duration_ms: 1000 })]);
    expect(await titles('nig', { bpmMin: 120 })).toEqual(['Night Fever']);
    expect(await titles('night d', { bpmMax: 100, durationMaxMs: 1000 })).toEqual(['Night Drive']);

    // A new tempo alone (the words stay): every word of the track gets it.
    await save(track(slow, 'Night Drive', 'Kavinsky', { bpm: 124 }));
    expect(await copiesOf(tenantId, slow)).toEqual([expect.objectContaining({ bpm: 124 })]);
    expect(await titles('nig', { bpmMin: 120 })).toEqual(['Night Drive', 'Night Fever']);
    expect(await titles('night', { bpmMax: 100 })).toEqual([]);

    // A new title and tempo at once: the kept, the new and none of the old words, all with it.
    await save(track(slow, 'Midnight Drive', 'Kavinsky', { bpm: 100 }));
    expect(await wordsOf(tenantId, slow)).toEqual(['drive', 'kavinsky', 'midnight']);
    expect(await copiesOf(tenantId, slow)).toEqual([expect.objectContaining({ bpm: 100 })]);
    expect(await titles('drive', { bpmMin: 95, bpmMax: 105 })).toEqual(['Midnight Drive']);
    expect(await titles('kav', { bpmMin: 120 })).toEqual([]);
  } finally {
    await runtime.stop();
  }
});

test('the search is never a named prepared statement (whose generic plan would scan the tenant’s tracks)', async () => {
  await (await startTestLibrary(database)).stop();
  const library = createDatabase<LibraryDb>({ url: database.urlAs('library_app'), schema: 'library', poolSize: 1 });
  try {
    const tenantId = newId();
    for (const q of ['a', 'bc', 'def', 'gh', 'ij', 'kl', 'mn'])
      await listTracks({ db: library.db, cursors }, tenantId, { q, bpmMin: 90 }, 1_000_000);
    // The same single connection: the statements it prepared by name.
    const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(library.db);
    expect(rows.filter((r) => r.statement.includes('track_words'))).toEqual([]);
  } finally {
    await library.close();
  }
});
