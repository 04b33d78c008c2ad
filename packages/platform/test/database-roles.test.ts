import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  createDatabase,
  migrateSchema,
  commonConfig,
  readConfig,
  runAsLeader,
  SCHEMA_OWNER_ROLE,
  setupDatabaseRoles,
  sleep,
  sql,
  startServiceRuntime,
  type Migrations,
  type ServiceRuntime,
} from '@catalog/platform';
import {
  capturingLogger,
  createTestDatabase,
  eventually,
  serviceEnvironment,
  testCredentials,
  testInfrastructure,
  testLogger,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';
import { createNotesTable } from './notes-table.js';

/**
 * Decision 0057: a service works as its own login role, which owns none of its tables and cannot
 * bypass row-level security; it refuses to start otherwise (unless DB_ALLOW_PRIVILEGED_ROLE), and
 * its pool has statement and idle-in-transaction timeouts.
 */
const SCHEMA = 'roletest';
const migrations: Migrations = {
  '0001_notes': {
    up: (db) => createNotesTable(db, SCHEMA),
  },
};

let database: TestDatabase;
let env: Record<string, string>;
const extraRoles: string[] = [];

async function asAdministrator(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: testInfrastructure().databaseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A login role made for one test (dropped at the end), with `attributes`; its URL on the test database. */
async function loginRole(attributes: string, grant?: string): Promise<string> {
  const role = `t_role_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await asAdministrator(`CREATE ROLE ${role} LOGIN ${attributes} PASSWORD '${password}'`);
  extraRoles.push(role);
  if (grant) await asAdministrator(`GRANT ${grant} TO ${role}`);
  const url = new URL(database.url);
  url.username = role;
  url.password = password;
  return url.toString();
}

function start(databaseUrl: string, extra: Record<string, string> = {}, logger = testLogger('roles')): Promise<ServiceRuntime<unknown>> {
  const config = readConfig(commonConfig(SCHEMA, 0), {
    ...env,
    ROLETEST_DATABASE_URL: databaseUrl,
    NATS_PREFIX: uniqueNatsPrefix('roles'),
    ROLETEST_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    ...extra,
  });
  return startServiceRuntime({ config, schema: SCHEMA, migrations, version: '0.0.0', logger });
}

async function setting(runtime: ServiceRuntime<unknown>, query: string): Promise<Record<string, string>> {
  const { rows } = await runtime.database.pool.query<Record<string, string>>(query);
  return rows[0]!;
}

beforeAll(async () => {
  database = await createTestDatabase('roles');
  env = await serviceEnvironment(database, [SCHEMA]);
});

afterAll(async () => {
  await database.drop();
  for (const role of extraRoles) await asAdministrator(`DROP ROLE IF EXISTS ${role}`);
});

describe('the database role a service works as', () => {
  test('its own login role starts: no superuser, no BYPASSRLS, owns nothing; its pool has the default timeouts', async () => {
    const runtime = await start(env.ROLETEST_DATABASE_URL!);
    try {
      expect(await setting(runtime, 'select session_user::text as session, current_user::text as current')).toEqual({
        session: 'roletest_app',
        current: 'roletest_app',
      });
      expect(await setting(runtime, 'show statement_timeout')).toEqual({ statement_timeout: '30s' });
      expect(await setting(runtime, 'show idle_in_transaction_session_timeout')).toEqual({ idle_in_transaction_session_timeout: '1min' });
      const { rows } = await runtime.database.pool.query<{ owner: string }>(
        `select tableowner as owner from pg_tables where schemaname = '${SCHEMA}'`,
      );
      expect(new Set(rows.map((row) => row.owner))).toEqual(new Set([SCHEMA_OWNER_ROLE]));
    } finally {
      await runtime.stop();
    }
  });

  test('refuses to start as a superuser', async () => {
    await expect(start(database.url)).rejects.toThrow(/refusing to start: .*database role "postgres" is a superuser/);
  });

  test('refuses to start as a role with BYPASSRLS', async () => {
    const url = await loginRole('BYPASSRLS');
    await expect(start(url)).rejects.toThrow(/refusing to start: .*database role "t_role_[0-9a-f]+" has BYPASSRLS/);
  });

  test('refuses to start as the owner of its tables, or a member of the owner', async () => {
    await expect(start(database.urlAs(SCHEMA_OWNER_ROLE))).rejects.toThrow(
      /refusing to start: .*database role "catalog_service_owner" owns \(or is a member of the owner of\) roletest\.kysely_migration, roletest\.kysely_migration_lock, roletest\.notes/,
    );
    const member = await loginRole('', SCHEMA_OWNER_ROLE);
    await expect(start(member)).rejects.toThrow(
      /database role "t_role_[0-9a-f]+" owns \(or is a member of the owner of\) .*roletest\.notes/,
    );
  });

  test('refuses to start as a member of a superuser role', async () => {
    const url = await loginRole('', 'postgres');
    await expect(start(url)).rejects.toThrow(/database role "t_role_[0-9a-f]+" is a member of "postgres", a superuser or BYPASSRLS role/);
  });

  test('with DB_ALLOW_PRIVILEGED_ROLE=true it starts as a superuser, says so, and still works as its role', async () => {
    const { logger, lines } = capturingLogger('roles');
    const runtime = await start(database.url, { DB_ALLOW_PRIVILEGED_ROLE: 'true' }, logger);
    try {
      expect(await setting(runtime, 'select session_user::text as session, current_user::text as current')).toEqual({
        session: 'postgres',
        current: 'roletest_app',
      });
      const warning = lines().find((line) => /DB_ALLOW_PRIVILEGED_ROLE/.test(String(line.msg)));
      expect(warning?.problems).toEqual(['database role "postgres" is a superuser']);
    } finally {
      await runtime.stop();
    }
  });
});

test('the role set-up hands a schema an earlier version migrated as a superuser to the owner; the service then starts', async () => {
  const earlier = await createTestDatabase('adopt');
  try {
    await migrateSchema({ url: earlier.url, schema: SCHEMA, role: 'roletest_app', migrations });
    const credentials = testCredentials();
    await setupDatabaseRoles(earlier.url, {
      ownerPassword: credentials.postgresPassword(SCHEMA_OWNER_ROLE),
      services: [{ schema: SCHEMA, password: credentials.postgresPassword('roletest_app') }],
    });
    const runtime = await start(earlier.urlAs('roletest_app'), { MIGRATION_DATABASE_URL: earlier.urlAs(SCHEMA_OWNER_ROLE) });
    await runtime.stop();
    const admin = new pg.Client({ connectionString: earlier.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ owner: string }>(
        `select distinct pg_get_userbyid(relowner) as owner from pg_class where relnamespace = '${SCHEMA}'::regnamespace
         union select pg_get_userbyid(nspowner) from pg_namespace where nspname = '${SCHEMA}'`,
      );
      expect(rows).toEqual([{ owner: SCHEMA_OWNER_ROLE }]);
    } finally {
      await admin.end();
    }
  } finally {
    await earlier.drop();
  }
});

describe('connections', () => {
  test('a SET ROLE that fails is an error, never a connection working as the login role', async () => {
    const db = createDatabase<unknown>({ url: database.url, schema: SCHEMA, role: 'no_such_role_here' });
    try {
      await expect(sql`select current_user`.execute(db.db)).rejects.toThrow(/role "no_such_role_here" does not exist/);
    } finally {
      await db.close();
    }
  });

  test('Postgres cuts off a statement that runs longer than the statement timeout', async () => {
    const db = createDatabase<unknown>({ url: env.ROLETEST_DATABASE_URL!, schema: SCHEMA, statementTimeoutMs: 200 });
    try {
      await expect(sql`select pg_sleep(5)`.execute(db.db)).rejects.toMatchObject({
        code: '57014',
        message: expect.stringMatching(/statement timeout/),
      });
      expect((await sql<{ ok: number }>`select 1 as ok`.execute(db.db)).rows).toEqual([{ ok: 1 }]);
    } finally {
      await db.close();
    }
  });

  test('Postgres ends a session left idle inside a transaction', async () => {
    const lost: Error[] = [];
    const db = createDatabase<unknown>({
      url: env.ROLETEST_DATABASE_URL!,
      schema: SCHEMA,
      idleInTransactionTimeoutMs: 200,
      onIdleConnectionError: (error) => lost.push(error),
    });
    try {
      const held = db.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await sleep(1_000);
        await sql`select 2`.execute(trx);
      });
      await expect(held).rejects.toThrow();
      // Reported, not an unhandled 'error' event that would end the process; the pool goes on.
      await eventually(async () => (lost.length > 0 ? true : undefined));
      expect(lost[0]).toMatchObject({ code: '25P03', message: expect.stringMatching(/idle-in-transaction timeout/) });
      expect((await sql<{ ok: number }>`select 1 as ok`.execute(db.db)).rows).toEqual([{ ok: 1 }]);
    } finally {
      await db.close();
    }
  });

  test('the lease connection (idle by design) has no statement or idle timeout', async () => {
    let seen: (settings: Record<string, string>) => void = () => undefined;
    const settings = new Promise<Record<string, string>>((resolve) => (seen = resolve));
    const runner = runAsLeader(
      {
        connectionString: env.ROLETEST_DATABASE_URL!,
        role: 'roletest_app',
        lockName: `roles-${randomBytes(3).toString('hex')}`,
        logger: testLogger(),
      },
      async ({ client }) => {
        const { rows } = await client.query<Record<string, string>>(
          "select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle",
        );
        seen(rows[0]!);
      },
    );
    try {
      expect(await settings).toEqual({ statement: '0', idle: '0' });
    } finally {
      await runner.stop();
    }
  });
});
