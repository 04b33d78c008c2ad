/**
 * `npm run db:setup`: creates the database roles of decision 0057 on the server of DATABASE_URL
 * (an administrator: a superuser, or a role with CREATEROLE that may grant CREATE on the database):
 * the schema owner `catalog_service_owner` that migrations run as, and one login role
 * `<service>_app` per service, with the passwords of CATALOG_CREDENTIALS_FILE (default
 * `.local/credentials.json`, created when missing; `npm start` does all of this itself).
 *
 * `npm run db:setup -- --print-sql DATABASE` prints the same statements for an operator to run
 * with psql, each password a psql variable: `psql -v catalog_service_owner_password=… -v
 * gateway_app_password=… …` (the Helm chart's way, see decision 0057).
 */
import { join } from 'node:path';
import { databaseRoleStatements, SCHEMA_OWNER_ROLE, serviceRoleOf, setupDatabaseRoles, type DatabaseRoleSetup } from '@catalog/platform';
import { BUS_SERVICES } from '@catalog/contracts';
import { ensureLocalCredentials } from '@catalog/testing';

function roles(password: (role: string) => string): DatabaseRoleSetup {
  return {
    ownerPassword: password(SCHEMA_OWNER_ROLE),
    services: BUS_SERVICES.map((schema) => ({ schema, password: password(serviceRoleOf(schema)) })),
  };
}

const [flag, database] = process.argv.slice(2);
if (flag === '--print-sql') {
  if (!database) throw new Error('usage: npm run db:setup -- --print-sql DATABASE');
  const statements = databaseRoleStatements(
    roles((role) => `${role}_password`),
    database,
    (variable) => `:'${variable}'`,
  );
  process.stdout.write(`${statements.join(';\n')};\n`);
} else {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL (an administrator of the Postgres server) is required');
  const credentials = ensureLocalCredentials(process.env.CATALOG_CREDENTIALS_FILE ?? join(process.cwd(), '.local', 'credentials.json'));
  await setupDatabaseRoles(adminUrl, roles(credentials.postgresPassword));
  process.stdout.write(`database roles ready: ${SCHEMA_OWNER_ROLE}, ${BUS_SERVICES.map(serviceRoleOf).join(', ')}\n`);
}
