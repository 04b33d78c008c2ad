import { readFileSync } from 'node:fs';
import { inTenantTransaction, newId, type ServiceRuntime } from '@catalog/platform';
import { listTracks } from '../src/domain/track-listing.js';
import { claimEntityPosition } from '../src/persistence/tracks.js';
import { createTestDatabase, probeRunningService, testInfrastructure, type TestDatabase } from '@catalog/testing';
import { startTestLibrary } from './fixtures.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('library');
});
afterAll(() => database.drop());

test('starts: migrates its schema, registers on NATS with the version of its package.json, answers health checks, stops cleanly', async () => {
  const { natsUrl } = testInfrastructure();
  const runtime = await startTestLibrary(database);
  try {
    const probe = await probeRunningService(runtime as unknown as ServiceRuntime<unknown>, {
      databaseUrl: database.url,
      natsUrl,
      schema: 'library',
    });
    expect(probe.tables).toContain('kysely_migration');
    expect(probe.registered).toContain('library');
    // The version it announces is its package.json's.
    // (A ping reaches every instance of that name on the server: other test files' too, of the same package.)
    expect([...new Set(probe.versions)]).toEqual([JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version]);
    expect(probe.ready).toEqual({ status: 200, body: { status: 'ready' } });
    expect(probe.tables).toEqual(expect.arrayContaining(['tracks', 'entity_positions', 'asset_states', 'projection', 'outbox']));

    // Order per entity (decision 0102): an event older than the applied one changes nothing; a
    // redelivery of the same one applies again; a new stream (recreated) starts over.
    const [tenantId, entityId] = [newId(), newId()];
    const claim = (stream: string, seq: number) =>
      inTenantTransaction(runtime.database.db, tenantId, (trx) => claimEntityPosition(trx, tenantId, entityId, { stream, seq }));
    expect(await claim('s1', 5)).toBe(true);
    expect(await claim('s1', 3)).toBe(false);
    expect(await claim('s1', 5)).toBe(true);
    expect(await claim('s1', 9)).toBe(true);
    expect(await claim('s2', 1)).toBe(true);
    expect(await claim('s2', 1)).toBe(true);
    expect(await claim('s2', 0)).toBe(false);

    // A cursor is not signed: one whose value does not fit its sort is 400 invalid_cursor, never a database error.
    const forged = (payload: Record<string, unknown>) => Buffer.from(JSON.stringify({ v: 1, ...payload })).toString('base64url');
    const list = (query: Record<string, unknown>) => listTracks(runtime.database.db, tenantId, query, 1_000_000);
    const cursor = { s: 'duration', o: 'a', q: '', k: 1000, i: entityId };
    await expect(list({ sort: 'duration', after: forged(cursor) })).resolves.toEqual({ tracks: [], nextCursor: null, hasMore: false });
    for (const k of ['abc', 2 ** 40, -1, 1.5]) {
      await expect(list({ sort: 'duration', after: forged({ ...cursor, k }) })).rejects.toMatchObject({
        status: 400,
        code: 'invalid_cursor',
      });
    }
    await expect(list({ sort: 'updated', after: forged({ ...cursor, s: 'updated', o: 'd', k: 'yesterday' }) })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_cursor',
    });
    await expect(list({ sort: 'title', after: forged({ ...cursor, s: 'title', k: null }) })).rejects.toMatchObject({ status: 400 });
  } finally {
    await runtime.stop();
  }
});
