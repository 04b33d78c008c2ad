import { readFileSync } from 'node:fs';
import { inTenantTransaction, newId, readConfig } from '@catalog/platform';
import { claimEntityPosition } from '../src/persistence/tracks.js';
import { createTestDatabase, startProbedService, type TestDatabase } from '@catalog/testing';
import { libraryConfig, startLibraryService } from '../src/index.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('library');
});
afterAll(() => database.drop());

test('starts: migrates its schema, registers on NATS with the version of its package.json, answers health checks, stops cleanly', async () => {
  const { runtime, probe } = await startProbedService(database, 'library', (env, logger) =>
    startLibraryService(readConfig(libraryConfig, env), { logger }),
  );
  try {
    // Its schema migrated, its name on NATS with its package.json's version (a ping reaches every
    // instance of that name on the server: other test files' too), ready.
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect({ ...probe, versions: [...new Set(probe.versions)] }).toMatchObject({
      tables: expect.arrayContaining(['kysely_migration', 'tracks', 'entity_positions', 'asset_states', 'projection', 'outbox']),
      registered: expect.arrayContaining(['library']),
      versions: [version],
      ready: { status: 200, body: { status: 'ready' } },
    });

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
  } finally {
    await runtime.stop();
  }
});
