/**
 * Credentials and configuration of the local servers that `npm start`, `npm test`, `.ci/run` and
 * `npm run bench` start (scripts/lib/infra.sh calls it; decisions 0055-0057):
 *
 *   local-servers.ts credentials FILE    creates FILE (mode 600) with a new secret unless it exists
 *   local-servers.ts nats-config FILE    prints nats-server's authorization: the services' users
 *                                        with their permissions, plus `admin` and `nobody`
 *   local-servers.ts env FILE            prints `export` lines giving every service its own database
 *                                        role, NATS user and the call context secret (DATABASE_URL's server)
 */
import { SCHEMA_OWNER_ROLE, serviceRoleOf } from '@catalog/platform';
import { BUS_SERVICES, busPermissions, LOCAL_NATS_USERS, natsPasswordVariable, renderNatsAuthorization } from '@catalog/contracts';
import { ensureLocalCredentials, readLocalCredentials, type LocalCredentials } from '@catalog/testing';

function adminUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL (an administrator of the Postgres server) is required');
  return url;
}

function serviceEnvironment(credentials: LocalCredentials): Record<string, string> {
  const as = (role: string): string => {
    const url = new URL(adminUrl());
    url.username = role;
    url.password = credentials.postgresPassword(role);
    return url.toString();
  };
  const env: Record<string, string> = {
    MIGRATION_DATABASE_URL: as(SCHEMA_OWNER_ROLE),
    CALL_CONTEXT_SECRET: credentials.callContextSecret,
    BLOB_SIGNING_SECRET: credentials.blobSigningSecret,
    CATALOG_CREDENTIALS_FILE: credentials.file!,
  };
  for (const service of BUS_SERVICES) {
    env[`${service.toUpperCase()}_DATABASE_URL`] = as(serviceRoleOf(service));
    env[natsPasswordVariable(service)] = credentials.natsPassword(service);
  }
  return env;
}

const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

const [command, file] = process.argv.slice(2);
if (!command || !file) {
  process.stderr.write('usage: local-servers.ts credentials|nats-config|env CREDENTIALS_FILE\n');
  process.exit(2);
}
switch (command) {
  case 'credentials':
    ensureLocalCredentials(file);
    break;
  case 'nats-config': {
    const credentials = readLocalCredentials(file);
    process.stdout.write(renderNatsAuthorization({ literal: credentials.natsPassword }, [...busPermissions(), ...LOCAL_NATS_USERS]));
    break;
  }
  case 'env':
    for (const [name, value] of Object.entries(serviceEnvironment(readLocalCredentials(file))))
      process.stdout.write(`export ${name}=${shellQuote(value)}\n`);
    break;
  default:
    process.stderr.write(`unknown command ${command}\n`);
    process.exit(2);
}
