import type { Entity, Version } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { createTestDatabase, testBusEvent, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { applyCatalogEvent } from '../src/domain/projection.js';
import { audioVersion, catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/**
 * A refresh for `entity.updated` events takes the versions the track was made of instead of
 * reading them again (decision 0107); any other event reads them, and what it read is what the
 * next title change builds on.
 */
let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('libraryversions');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

test('a title change reuses the stored versions; a version event reads them again and later title changes keep its result', async () => {
  const runtime = await startTestLibrary(database);
  const [tenantId, entityId] = [newId(), newId()];
  const entities = new Map([[tenantId, new Map([[entityId, { ...testEntity, id: entityId, title: 'First' } as Entity]])]]);
  let versions: Version[] = [audioVersion({}, entityId)];
  const { deps, calls } = catalogDouble(runtime.database.db, entities, () => versions);
  const setTitle = (title: string) => entities.get(tenantId)!.set(entityId, { ...testEntity, id: entityId, title });
  const entityUpdated = testBusEvent({ tenantId, type: 'entity.updated', resourceKind: 'entity', resourceId: entityId });
  const versionUpdated = testBusEvent({
    tenantId,
    type: 'version.updated',
    resourceKind: 'version',
    resourceId: versions[0]!.id,
    data: { entityId, kind: 'AUDIO', changedFields: ['label'] },
  });
  const at = (seq: number) => ({ stream: 's1', seq });
  const stored = async () =>
    (
      await admin.query(
        `select summary->>'title' as title, summary->'audioVersion'->>'label' as label from library.tracks where entity_id = $1`,
        [entityId],
      )
    ).rows[0];
  try {
    // No track yet: the versions are read.
    expect(await applyCatalogEvent(deps, entityUpdated, at(1))).toBe('added');
    expect(calls.versions).toBe(1);
    // A title change: the entity is read, the versions are not.
    setTitle('Second');
    expect(await applyCatalogEvent(deps, entityUpdated, at(2))).toBe('updated');
    expect(calls.versions).toBe(1);
    expect(await stored()).toEqual({ title: 'Second', label: 'Main' });
    // A version event reads them again.
    versions = [audioVersion({ label: 'Radio', updatedAt: '2026-01-04T00:00:00.000Z' }, entityId)];
    expect(await applyCatalogEvent(deps, versionUpdated, at(3))).toBe('updated');
    expect(calls.versions).toBe(2);
    // The next title change builds on what that read stored.
    setTitle('Third');
    expect(await applyCatalogEvent(deps, entityUpdated, at(4))).toBe('updated');
    expect(calls.versions).toBe(2);
    expect(await stored()).toEqual({ title: 'Third', label: 'Radio' });
    // A track written before decision 0107 has no stored versions: they are read.
    await admin.query('update library.tracks set catalog_versions = null where entity_id = $1', [entityId]);
    setTitle('Fourth');
    expect(await applyCatalogEvent(deps, entityUpdated, at(5))).toBe('updated');
    expect(calls.versions).toBe(3);
    expect(await stored()).toEqual({ title: 'Fourth', label: 'Radio' });
  } finally {
    await runtime.stop();
  }
});
