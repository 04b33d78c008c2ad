import pg from 'pg';
import { readConfig, type ServiceRuntime } from '@catalog/platform';
import { createTestDatabase, serviceEnvironment, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { analysisConfig, startAnalysisService } from '../../src/index.js';
import type { AnalysisDb } from '../../src/persistence/tables.js';

/** An analysis service of a test file (its own database and NATS prefix, no worker) and a client of its database as owner. */
export interface AnalysisUnderTest {
  runtime: ServiceRuntime<AnalysisDb>;
  sql: pg.Client;
  /** The NATS prefix it runs on. */
  prefix: string;
  stop(): Promise<void>;
}

/** Starts the analysis service alone (ANALYSIS_CONCURRENCY=0 unless `env` says otherwise) on a fresh database. */
export async function startAnalysisUnderTest(
  names: { database: string; prefix: string },
  env: Record<string, string>,
): Promise<AnalysisUnderTest> {
  const database: TestDatabase = await createTestDatabase(names.database);
  const prefix = uniqueNatsPrefix(names.prefix);
  const config = readConfig(analysisConfig, {
    ...(await serviceEnvironment(database, ['analysis'])),
    NATS_PREFIX: prefix,
    ANALYSIS_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    ANALYSIS_CONCURRENCY: '0',
    ...env,
  });
  const runtime = await startAnalysisService(config, { logger: testLogger('analysis') });
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  return {
    runtime,
    sql,
    prefix,
    async stop() {
      await sql.end();
      await runtime.stop();
      await database.drop();
    },
  };
}
