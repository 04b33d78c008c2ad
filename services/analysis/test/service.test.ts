import { readFileSync } from 'node:fs';
import { readConfig } from '@catalog/platform';
import {
  createTestDatabase,
  probeRunningService,
  serviceEnvironment,
  testInfrastructure,
  testLogger,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';
import { analysisConfig, startAnalysisService } from '../src/index.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('analysis');
});
afterAll(() => database.drop());

test('starts: migrates its schema, registers on NATS with the version of its package.json, answers health checks, stops cleanly', async () => {
  const { natsUrl } = testInfrastructure();
  const config = readConfig(analysisConfig, {
    ...(await serviceEnvironment(database, ['analysis'])),
    NATS_PREFIX: uniqueNatsPrefix(),
    ANALYSIS_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
  });
  const runtime = await startAnalysisService(config, { logger: testLogger() });
  try {
    const probe = await probeRunningService(runtime, { databaseUrl: database.url, natsUrl, schema: 'analysis' });
    expect(probe.tables).toContain('kysely_migration');
    expect(probe.registered).toContain('analysis');
    // The version it announces is its package.json's.
    // (A ping reaches every instance of that name on the server: other test files' too, of the same package.)
    expect([...new Set(probe.versions)]).toEqual([JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version]);
    expect(probe.ready).toEqual({ status: 200, body: { status: 'ready' } });
  } finally {
    await runtime.stop();
  }
});
