import pg from 'pg';
import type { Logger } from '../observability/logger.js';
import { assertIdentifier } from './database.js';

/**
 * The database roles of decision 0057: one owner that migrations run as (it owns every schema and
 * table), and per service a login role `<schema>_app` that owns nothing, is no superuser and
 * cannot bypass row-level security.
 */
export const SCHEMA_OWNER_ROLE = 'catalog_service_owner';

export function serviceRoleOf(schema: string): string {
  return `${assertIdentifier(schema)}_app`;
}

export interface DatabaseRoleSetup {
  /** The owner role (default `catalog_service_owner`) and its password. */
  owner?: string;
  ownerPassword: string;
  /** The schemas of the services, each with its login role's password. */
  services: Array<{ schema: string; password: string }>;
}

/**
 * A new role is no superuser and has no BYPASSRLS; an existing one keeps what it has (only a
 * superuser may change those) and the service refuses to start with it.
 */
function createRole(role: string): string {
  // Roles are cluster-wide: another setup may create the same one at the same time.
  return `DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role}; END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$`;
}

/**
 * Hands schema `schema`, if it exists, and what is in it (tables, their sequences, standalone
 * sequences, functions) to the owner: schemas an earlier version migrated as another role (a
 * superuser, say) are migrated by the owner from now on.
 */
function adoptSchema(schema: string, owner: string): string {
  return `DO $$
DECLARE item record;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = '${schema}') THEN RETURN; END IF;
  EXECUTE 'ALTER SCHEMA ${schema} OWNER TO ${owner}';
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = '${schema}' AND c.relowner <> '${owner}'::regrole
                 AND (c.relkind IN ('r', 'p') OR (c.relkind = 'S' AND NOT EXISTS (
                   SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO ${owner}', CASE item.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE n.nspname = '${schema}' AND p.proowner <> '${owner}'::regrole
  LOOP
    EXECUTE format('ALTER FUNCTION %s OWNER TO ${owner}', item.name);
  END LOOP;
END $$`;
}

/**
 * The statements that set the roles up in database `database`, as an administrator (a superuser,
 * or a role with CREATEROLE that may grant CREATE on the database) runs them. `password` renders
 * a password as an SQL literal. Idempotent: a role that exists gets LOGIN and its password again,
 * and loses membership of the owner role; an existing service schema is handed to the owner.
 */
export function databaseRoleStatements(setup: DatabaseRoleSetup, database: string, password: (value: string) => string): string[] {
  const owner = assertIdentifier(setup.owner ?? SCHEMA_OWNER_ROLE);
  const statements = [createRole(owner), `ALTER ROLE ${owner} LOGIN PASSWORD ${password(setup.ownerPassword)}`];
  statements.push(`GRANT CONNECT, CREATE ON DATABASE ${assertIdentifier(database)} TO ${owner}`);
  for (const service of setup.services) {
    const role = serviceRoleOf(service.schema);
    statements.push(createRole(role), `ALTER ROLE ${role} LOGIN PASSWORD ${password(service.password)}`, `REVOKE ${owner} FROM ${role}`);
    statements.push(adoptSchema(assertIdentifier(service.schema), owner));
  }
  return statements;
}

/**
 * Creates (or brings back to shape) the owner and service roles, connected to the database the
 * services use as an administrator. Set-ups on one database take turns; one on another database
 * that changes the same role at the same moment makes this one start over (roles are cluster-wide).
 */
export async function setupDatabaseRoles(adminUrl: string, setup: DatabaseRoleSetup): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'db-setup' });
  await client.connect();
  try {
    const { rows } = await client.query<{ db: string }>('select current_database() as db');
    const statements = databaseRoleStatements(setup, rows[0]!.db, (value) => client.escapeLiteral(value));
    for (let attempt = 1; ; attempt += 1) {
      try {
        await client.query('BEGIN');
        await client.query("select pg_advisory_xact_lock(hashtext('catalog-service:db-setup'))");
        for (const statement of statements) await client.query(statement);
        await client.query('COMMIT');
        return;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (attempt >= 5 || !/tuple concurrently (updated|deleted)/.test((error as Error).message)) throw error;
      }
    }
  } finally {
    await client.end();
  }
}

interface RoleFacts {
  rolname: string;
  rolsuper: boolean;
  rolbypassrls: boolean;
  privileged_memberships: string[];
  owned: string[];
}

/**
 * What is wrong with the roles a service's connections run as (the login role and the role it
 * sets) for schema `schema`: a superuser or BYPASSRLS role (also through membership of one)
 * escapes row-level security, and so does the owner of a table (or a member of it).
 */
async function databaseRoleProblems(pool: pg.Pool, schema: string): Promise<string[]> {
  const { rows } = await pool.query<RoleFacts>(
    `select r.rolname, r.rolsuper, r.rolbypassrls,
            array(select p.rolname::text from pg_roles p
                   where (p.rolsuper or p.rolbypassrls) and p.oid <> r.oid and pg_has_role(r.oid, p.oid, 'MEMBER')
                   order by 1) as privileged_memberships,
            array(select format('%s.%s', n.nspname, c.relname) from pg_class c join pg_namespace n on n.oid = c.relnamespace
                   where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'f') and pg_has_role(r.oid, c.relowner, 'MEMBER')
                   order by 1) as owned
       from pg_roles r
      where r.rolname in (session_user, current_user)
      order by r.rolname = session_user desc`,
    [schema],
  );
  return rows.flatMap((role) => {
    const name = `database role "${role.rolname}"`;
    // A superuser is a member of every role and may do anything: nothing else to say.
    if (role.rolsuper) return [`${name} is a superuser`];
    return [
      ...(role.rolbypassrls ? [`${name} has BYPASSRLS`] : []),
      ...role.privileged_memberships.map((other) => `${name} is a member of "${other}", a superuser or BYPASSRLS role`),
      ...(role.owned.length > 0 ? [`${name} owns (or is a member of the owner of) ${role.owned.join(', ')}`] : []),
    ];
  });
}

/**
 * Refuses to go on when the service's database roles could bypass row-level security, unless
 * `allowPrivileged` (development only), in which case the problems are logged.
 */
export async function assertSafeDatabaseRole(
  pool: pg.Pool,
  schema: string,
  options: { allowPrivileged: boolean; logger: Logger },
): Promise<void> {
  const problems = await databaseRoleProblems(pool, schema);
  if (problems.length === 0) return;
  if (options.allowPrivileged) {
    options.logger.warn({ problems }, 'DB_ALLOW_PRIVILEGED_ROLE: working with database roles that bypass row-level security');
    return;
  }
  throw new Error(
    `refusing to start: row-level security would not hold: ${problems.join('; ')}. ` +
      'Connect as the service role (see decision 0057, `npm run db:setup`); DB_ALLOW_PRIVILEGED_ROLE=true allows it for development only',
  );
}
