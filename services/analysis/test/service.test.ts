import { readFileSync } from 'node:fs';
import { readConfig } from '@catalog/platform';
import { createTestDatabase, startProbedService, type TestDatabase } from '@catalog/testing';
import { analysisConfig, startAnalysisService } from '../src/index.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('analysis');
});
afterAll(() => database.drop());

test('starts: migrates its schema, registers on NATS with the version of its package.json, answers health checks, stops cleanly', async () => {
  const { runtime, probe } = await startProbedService(database, 'analysis', (env, logger) =>
    startAnalysisService(readConfig(analysisConfig, env), { logger }),
  );
  try {
    // Its schema migrated, its name on NATS with its package.json's version (a ping reaches every
    // instance of that name on the server: other test files' too), ready.
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect({ ...probe, versions: [...new Set(probe.versions)] }).toMatchObject({
      tables: expect.arrayContaining(['kysely_migration']),
      registered: expect.arrayContaining(['analysis']),
      versions: [version],
      ready: { status: 200, body: { status: 'ready' } },
    });
  } finally {
    await runtime.stop();
  }
});
