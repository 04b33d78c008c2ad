/**
 * `npm run migrate [-- SERVICE...]`: applies the migrations of every service (or the named ones)
 * to its own schema, as the migration role (MIGRATION_DATABASE_URL, else DATABASE_URL), and
 * grants the service's working role. Services also migrate at start unless MIGRATE_ON_START=false.
 */
import { createLogger, migrateSchema, type Migrations } from '@catalog/platform';
import { analysisMigrations } from '@catalog/analysis';
import { assetMigrations } from '@catalog/asset';
import { catalogMigrations } from '@catalog/catalog';
import { eventsMigrations } from '@catalog/events';
import { gatewayMigrations } from '@catalog/gateway';
import { libraryMigrations } from '@catalog/library';

const all: Record<string, Migrations> = {
  gateway: gatewayMigrations,
  catalog: catalogMigrations,
  asset: assetMigrations,
  analysis: analysisMigrations,
  events: eventsMigrations,
  library: libraryMigrations,
};

const url = process.env.MIGRATION_DATABASE_URL ?? process.env.DATABASE_URL;
if (!url) {
  process.stderr.write('MIGRATION_DATABASE_URL or DATABASE_URL is required\n');
  process.exit(2);
}
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in all));
if (unknown.length > 0) {
  process.stderr.write(`unknown service(s): ${unknown.join(', ')}; known: ${Object.keys(all).join(', ')}\n`);
  process.exit(2);
}
const logger = createLogger({ service: 'migrate' });
for (const schema of wanted.length > 0 ? wanted : Object.keys(all)) {
  const applied = await migrateSchema({ url, schema, role: `${schema}_app`, migrations: all[schema]!, logger });
  logger.info({ schema, applied: applied.length }, applied.length > 0 ? 'schema migrated' : 'schema up to date');
}
