/**
 * The baseline of bench/gateway: a single process serving the catalog's own `getEntity` and
 * `createEntity` operations (the same code the catalog service runs: schema checks, the
 * tenant-scoped query, the insert with its outbox row in one statement, the same JSON) from one
 * Koa listener straight on Postgres, with no authentication, no NATS hop and no second process.
 */
import Koa from 'koa';
import { catalogOperations, type AssetClient, type CatalogDb } from '@catalog/catalog';
import { createDatabase, createLogger, newId, readJsonBody, type CallContext, type Operation } from '@catalog/platform';

const port = Number(process.env.PORT ?? 8090);
const tenantId = process.env.BENCH_TENANT_ID!;
const database = createDatabase<CatalogDb>({
  // As the catalog connects: its own login role (decision 0057).
  url: process.env.CATALOG_DATABASE_URL ?? process.env.DATABASE_URL!,
  schema: 'catalog',
  role: 'catalog_app',
  poolSize: Number(process.env.DB_POOL_SIZE ?? 10),
});
// Only the entity operations run here; the versions' asset client is never called.
const operations = catalogOperations({
  db: database.db,
  assets: {} as AssetClient,
  maxVersionsPerEntity: 100,
  // Imports never run here (the default of CATALOG_IMPORT_MAX_QUEUED_PER_TENANT).
  maxQueuedImportsPerTenant: 20,
  logger: createLogger({ service: 'baseline', level: 'warn' }),
});
const byId = (id: string): Operation => operations.find((operation) => operation.definition.operationId === id)!;
const getEntity = byId('getEntity');
const createEntity = byId('createEntity');
const MAX_BODY_BYTES = 1024 * 1024;

const app = new Koa();
app.use(async (ctx) => {
  const call: CallContext = { tenantId, keyId: null, sourceSystem: 'bench-baseline', requestId: newId() };
  const read = /^\/api\/v1\/catalog\/entities\/([0-9a-f-]{36})$/.exec(ctx.path);
  let operation: Operation | undefined;
  let params: Record<string, string> = {};
  if (ctx.method === 'GET' && read) {
    operation = getEntity;
    params = { id: read[1]! };
  } else if (ctx.method === 'POST' && ctx.path === '/api/v1/catalog/entities') {
    operation = createEntity;
  }
  if (!operation) {
    ctx.status = 404;
    return;
  }
  const body = operation === createEntity ? await readJsonBody(ctx, MAX_BODY_BYTES) : undefined;
  try {
    const result = await operation.handle({ params, query: {}, body }, call, { maxBodyBytes: MAX_BODY_BYTES });
    ctx.status = result.status ?? operation.definition.success.status;
    ctx.body = result.body ?? null;
  } catch (error) {
    ctx.status = (error as { status?: number }).status ?? 500;
    ctx.body = { error: { message: (error as Error).message } };
  }
});
app.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  void database.close().then(() => process.exit(0));
});
