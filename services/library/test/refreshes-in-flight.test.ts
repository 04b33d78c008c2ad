import type { Entity } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { createTestDatabase, testBusEvent, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { applyCatalogEvent } from '../src/domain/projection.js';
import { refreshesInFlight } from '../src/domain/refreshes-in-flight.js';
import { catalogDouble, startTestLibrary, testEntity } from './fixtures.js';

/**
 * The library's two consumers get a quiet tenant's event at the same moment (decisions 0150,
 * 0176): the second waits for the first's refresh of the entity instead of reading the catalog
 * and writing the track again.
 */
test('a refresh at the same or an earlier position of the stream is covered by the one running; others run', async () => {
  const inFlight = refreshesInFlight();
  const first = inFlight.enter('t', 'e', { stream: 's1', seq: 5 });
  expect('done' in first).toBe(true);
  const same = inFlight.enter('t', 'e', { stream: 's1', seq: 5 });
  const earlier = inFlight.enter('t', 'e', { stream: 's1', seq: 4 });
  expect('covered' in same && 'covered' in earlier).toBe(true);
  expect('done' in inFlight.enter('t', 'other', { stream: 's1', seq: 5 })).toBe(true);
  expect('done' in inFlight.enter('t', 'e', { stream: 's2', seq: 1 })).toBe(true);
  (first as { done: (committed: boolean) => void }).done(true);
  await expect((same as { covered: Promise<boolean> }).covered).resolves.toBe(true);
});

let database: TestDatabase;
let admin: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('libraryinflight');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await database.drop();
});

/** A catalog double whose entity reads wait until `release` (so two refreshes overlap), counted. */
async function overlapping(tenantId: string, entityId: string) {
  const runtime = await startTestLibrary(database);
  const entities = new Map([[tenantId, new Map([[entityId, { ...testEntity, id: entityId, title: 'Song' } as Entity]])]]);
  const { deps, calls } = catalogDouble(runtime.database.db, entities);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const read = deps.catalog.entities;
  deps.catalog.entities = async (...args) => {
    await gate;
    return read(...args);
  };
  return { runtime, deps, calls, release };
}

test('of two consumers refreshing an entity at one position, the second waits for the first and reads nothing', async () => {
  const [tenantId, entityId] = [newId(), newId()];
  const { runtime, deps, calls, release } = await overlapping(tenantId, entityId);
  const inFlight = refreshesInFlight();
  const event = testBusEvent({ tenantId, type: 'entity.updated', resourceKind: 'entity', resourceId: entityId });
  try {
    const main = applyCatalogEvent({ ...deps, inFlight }, event, { stream: 's1', seq: 1 });
    const express = applyCatalogEvent({ ...deps, inFlight }, event, { stream: 's1', seq: 1 });
    release();
    expect(await Promise.all([main, express])).toEqual(['added', 'stale']);
    expect(calls.entity).toBe(1);
    const { rows } = await admin.query('select type from library.outbox where resource_id = $1', [entityId]);
    expect(rows).toEqual([{ type: 'track.added' }]);
  } finally {
    await runtime.stop();
  }
});

test('the second applies the event itself when the first fails, and an event with a file’s facts is never left to another', async () => {
  const [tenantId, entityId, assetId] = [newId(), newId(), newId()];
  const { runtime, deps, calls, release } = await overlapping(tenantId, entityId);
  const inFlight = refreshesInFlight();
  const event = testBusEvent({ tenantId, type: 'entity.updated', resourceKind: 'entity', resourceId: entityId });
  try {
    const read = deps.catalog.entities;
    let failNext = true;
    deps.catalog.entities = async (...args) => {
      if (failNext) {
        failNext = false;
        await new Promise((r) => setTimeout(r, 20));
        throw new Error('the catalog service is not available');
      }
      return read(...args);
    };
    const failing = applyCatalogEvent({ ...deps, inFlight }, event, { stream: 's1', seq: 1 });
    const second = applyCatalogEvent({ ...deps, inFlight }, event, { stream: 's1', seq: 1 });
    release();
    await expect(failing).rejects.toThrow('not available');
    expect(await second).toBe('added');
    // A file's status at a position another refresh covers: claimed and recorded all the same.
    const asset = testBusEvent({
      tenantId,
      type: 'asset.status_changed',
      resourceKind: 'asset',
      resourceId: assetId,
      data: { entityId, status: 'ONLINE', durationMs: 1000 },
    });
    const before = calls.entity;
    const covering = inFlight.enter(tenantId, entityId, { stream: 's1', seq: 9 });
    await applyCatalogEvent({ ...deps, inFlight }, asset, { stream: 's1', seq: 2 });
    (covering as { done: (committed: boolean) => void }).done(true);
    expect(calls.entity).toBe(before + 1);
    const { rows } = await admin.query('select status from library.asset_states where asset_id = $1', [assetId]);
    expect(rows).toEqual([{ status: 'ONLINE' }]);
  } finally {
    await runtime.stop();
  }
});
