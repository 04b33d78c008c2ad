import type { Entity } from '@catalog/contracts';
import { createDatabase, newId } from '@catalog/platform';
import { createTestDatabase, eventually, testBusEvent, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { applyCatalogEvent } from '../src/domain/projection.js';
import { PROJECTION_VERSION, rebuildLibrary, rebuildWhenNeeded } from '../src/domain/rebuild.js';
import { projectionVersion, withRebuildLock } from '../src/persistence/projection.js';
import type { LibraryDb } from '../src/persistence/tables.js';
import { catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/** The rebuild (decision 0104): one replica at a time, and tracks of entities the catalog no longer has are removed. */
let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('libraryrebuild');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

test('a rebuild removes the tracks of entities the catalog no longer lists and keeps the others', async () => {
  const runtime = await startTestLibrary(database);
  const [tenantId, kept, gone] = [newId(), newId(), newId()];
  const songs = new Map<string, Entity>([
    [kept, { ...testEntity, id: kept, title: 'Kept' }],
    [gone, { ...testEntity, id: gone, title: 'Gone' }],
  ]);
  const { deps } = catalogDouble(runtime.database.db, new Map([[tenantId, songs]]));
  const created = (entityId: string) => testBusEvent({ tenantId, type: 'entity.created', resourceKind: 'entity', resourceId: entityId });
  const tracks = async () =>
    (await admin.query('select title_sort from library.tracks where tenant_id = $1 order by title_sort', [tenantId])).rows.map(
      (r) => r.title_sort,
    );
  try {
    await applyCatalogEvent(deps, created(kept), { stream: 's1', seq: 1 });
    await applyCatalogEvent(deps, created(gone), { stream: 's1', seq: 2 });
    expect(await tracks()).toEqual(['gone', 'kept']);
    // Deleted while no event reached the library (a lost stream, say).
    songs.delete(gone);
    const result = await rebuildLibrary(deps);
    expect(result.outcomes).toEqual({ unchanged: 1, removed: 1 });
    expect(await tracks()).toEqual(['kept']);
    const { rows } = await admin.query('select type, resource_id, data from library.outbox where tenant_id = $1 order by seq', [tenantId]);
    expect(rows.at(-1)).toMatchObject({ type: 'track.removed', resource_id: gone, data: { reason: 'entity_deleted' } });
  } finally {
    await runtime.stop();
  }
});

test('one rebuild at a time: while another holds the lock a replica waits, serving, and rebuilds only if still needed', async () => {
  // Migrated by a service that stopped: no replica's own rebuild in the way.
  await (await startTestLibrary(database)).stop();
  const library = createDatabase<LibraryDb>({ url: database.urlAs('library_app'), schema: 'library' });
  const db = library.db;
  const { deps, calls } = catalogDouble(db, new Map());
  try {
    await admin.query('delete from library.projection');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    const holder = withRebuildLock(db, () => {
      holding = true;
      return held;
    });
    await eventually(async () => (holding ? true : undefined));
    // Held: another session does not get it.
    expect((await withRebuildLock(db, async () => undefined)).ran).toBe(false);

    const stop = rebuildWhenNeeded(deps);
    // The other replica holds the lock: this one does not walk the catalog.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // eslint-disable-next-line no-restricted-syntax -- a lock held elsewhere leaves nothing to settle; load only lengthens the wait
    expect(calls.tenantPage).toBe(0);
    expect(await projectionVersion(db)).toBeNull();

    release();
    expect((await holder).ran).toBe(true);
    await eventually(async () => ((await projectionVersion(db)) === PROJECTION_VERSION ? true : undefined), 20_000);
    expect(calls.tenantPage).toBe(1);
    await stop();
  } finally {
    await library.close();
  }
});
