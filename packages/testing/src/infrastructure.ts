import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Test infrastructure comes from the environment (DATABASE_URL, NATS_URL), started by
 * `npm test` / `.ci/run`; every test file works in a database and a NATS subject prefix of its own.
 */
export function testInfrastructure(): { databaseUrl: string; natsUrl: string } {
  const databaseUrl = process.env.DATABASE_URL;
  const natsUrl = process.env.NATS_URL;
  if (!databaseUrl || !natsUrl) {
    throw new Error('tests need DATABASE_URL and NATS_URL: run them with `npm test`, which starts Postgres and NATS');
  }
  return { databaseUrl, natsUrl };
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates an empty database for one test file; `drop()` removes it. */
export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const { databaseUrl } = testInfrastructure();
  const name = `t_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A NATS subject/stream prefix nobody else uses. */
export function uniqueNatsPrefix(label = 't'): string {
  return `${label.replace(/[^A-Za-z0-9]/g, '')}${randomBytes(4).toString('hex')}`;
}
