/**
 * `node deploy/migrate.mjs [SCHEMA...]`: applies the migrations of the named services (every
 * service when none is named) to their own schemas, as the schema owner (MIGRATION_DATABASE_URL,
 * else DATABASE_URL), and grants each service's login role `<schema>_app` (decision 0057).
 *
 * The image carries it as /app/deploy/migrate.mjs: the Helm chart's pre-install/pre-upgrade Job of
 * each schema and the Compose file's `migrate` service run it (decision 0123). `npm run migrate`
 * runs it on the sources (`--conditions=source --import tsx`).
 */
import { createLogger, migrateSchema } from '@catalog/platform';

/** Each schema's package and the name of its migrations export. */
const SCHEMAS = {
  gateway: ['@catalog/gateway', 'gatewayMigrations'],
  catalog: ['@catalog/catalog', 'catalogMigrations'],
  asset: ['@catalog/asset', 'assetMigrations'],
  analysis: ['@catalog/analysis', 'analysisMigrations'],
  events: ['@catalog/events', 'eventsMigrations'],
  library: ['@catalog/library', 'libraryMigrations'],
};

const url = process.env.MIGRATION_DATABASE_URL ?? process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('MIGRATION_DATABASE_URL or DATABASE_URL is required\n');
  process.exit(2);
}
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !Object.hasOwn(SCHEMAS, name));
if (unknown.length > 0) {
  process.stderr.write(`unknown schema(s): ${unknown.join(', ')}; known: ${Object.keys(SCHEMAS).join(', ')}\n`);
  process.exit(2);
}
const logger = createLogger({ service: 'migrate', level: process.env.LOG_LEVEL ?? 'info' });
for (const schema of wanted.length > 0 ? wanted : Object.keys(SCHEMAS)) {
  const [packageName, exportName] = SCHEMAS[schema];
  const migrations = (await import(packageName))[exportName];
  const applied = await migrateSchema({ url, schema, role: `${schema}_app`, migrations, logger });
  logger.info({ schema, applied: applied.length }, applied.length > 0 ? 'schema migrated' : 'schema up to date');
}
