/**
 * The baseline of bench/gateway: the same entity read served by one Koa process straight on
 * Postgres (same pool settings, same tenant-scoped query as the catalog service), with no
 * authentication, no NATS hop and no second process.
 */
import Koa from 'koa';
import type { EntitiesTable } from '@catalog/catalog';
import { createDatabase, inTenantScope } from '@catalog/platform';

/** The catalog's own table type: the baseline reads the same rows. */
interface Db {
  entities: EntitiesTable;
}

const port = Number(process.env.PORT ?? 8090);
const tenantId = process.env.BENCH_TENANT_ID!;
const database = createDatabase<Db>({
  url: process.env.DATABASE_URL!,
  schema: 'catalog',
  role: 'catalog_app',
  poolSize: Number(process.env.DB_POOL_SIZE ?? 10),
});
const app = new Koa();
app.use(async (ctx) => {
  const match = /^\/api\/v1\/catalog\/entities\/([0-9a-f-]{36})$/.exec(ctx.path);
  if (!match) {
    ctx.status = 404;
    return;
  }
  const row = await inTenantScope(database.db, tenantId, (db) =>
    db.selectFrom('entities').selectAll().where('tenant_id', '=', tenantId).where('id', '=', match[1]!).executeTakeFirst(),
  );
  if (!row) {
    ctx.status = 404;
    return;
  }
  ctx.body = {
    id: row.id,
    type: row.type,
    title: row.title,
    artist: row.artist,
    externalReferences: { dmrn: row.dmrn },
    primaryAudioVersion: null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
});
app.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  void database.close().then(() => process.exit(0));
});
