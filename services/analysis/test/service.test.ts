import { Svcm } from '@nats-io/services';
import { connectBus, readConfig } from '@catalog/platform';
import { createTestDatabase, testInfrastructure, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/platform/testing';
import pg from 'pg';
import { readAnalysisConfig, startAnalysisService } from '../src/index.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('analysis');
});
afterAll(() => database.drop());

test('starts: migrates its schema, registers on NATS, answers health checks, stops cleanly', async () => {
  const { natsUrl } = testInfrastructure();
  const config = readConfig(readAnalysisConfig, {
    DATABASE_URL: database.url,
    NATS_URL: natsUrl,
    NATS_PREFIX: uniqueNatsPrefix(),
    ANALYSIS_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
  });
  const runtime = await startAnalysisService(config, { logger: testLogger() });
  const observer = await connectBus({ url: natsUrl, name: 'observer', logger: testLogger() });
  try {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query("select table_name from information_schema.tables where table_schema = 'analysis' order by 1");
    await client.end();
    expect(rows.map((r) => r.table_name)).toContain('kysely_migration');

    const pings = await new Svcm(observer).client().ping('analysis');
    const names: string[] = [];
    for await (const identity of pings) names.push(identity.name);
    expect(names).toContain('analysis');

    const ready = await fetch(`${runtime.http!.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  } finally {
    await observer.drain();
    await runtime.stop();
  }
});
