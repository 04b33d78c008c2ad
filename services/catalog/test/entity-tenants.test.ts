import type { Entity } from '@catalog/contracts';
import pg from 'pg';
import { callRpc, migrateSchema, newId, NO_TENANT, SCHEMA_OWNER_ROLE, subjectsFor, type RpcReply } from '@catalog/platform';
import { createTestDatabase, testBus, testCallContext } from '@catalog/testing';
import { catalogMigrations } from '../src/index.js';
import { startHarness, type CatalogHarness, type EntityPage } from './support.js';

/** `listEntityTenants` (internal; the library's rebuild walks the tenants with it, decision 0102). */
let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catenttenants');
});
afterAll(() => h?.stop());

async function listTenants(query: Record<string, unknown>, user = 'library'): Promise<RpcReply> {
  const nc = await testBus('tenants-client', { user });
  try {
    const rpc = { nc, subjects: subjectsFor(h.natsPrefix), callContext: testCallContext() };
    return await callRpc(
      rpc,
      'catalog',
      'listEntityTenants',
      { params: {}, query, body: null },
      {
        tenantId: NO_TENANT,
        keyId: null,
        sourceSystem: 'library',
        requestId: newId(),
      },
    );
  } finally {
    await nc.close();
  }
}

test('lists every tenant that has had an entity, in id order, keyset paged, for no tenant; a tenant appears once however many entities it has', async () => {
  const tenants = [h.tenant(), h.tenant(), h.tenant()];
  for (const tenant of tenants) await tenant.ok('createEntity', { body: { type: 'song', title: 'One' } });
  await tenants[0]!.ok('createEntities', {
    body: {
      entities: [
        { type: 'song', title: 'Two' },
        { type: 'jingle', title: 'Three' },
      ],
    },
  });
  // A tenant whose only entity was deleted stays listed: the rebuild then finds no entities there.
  const gone = await tenants[2]!.ok<Entity>('getEntity', {
    params: { id: (await tenants[2]!.ok<EntityPage>('listEntities')).entities[0]!.id },
  });
  expect((await tenants[2]!.call('deleteEntity', { params: { id: gone.id } })).ok).toBe(true);

  const expected = tenants.map((t) => t.tenantId).sort();
  const first = await listTenants({ limit: 2 });
  expect(first).toMatchObject({ ok: true, body: { tenants: expected.slice(0, 2), nextCursor: expected[1], hasMore: true } });
  const second = await listTenants({ limit: 2, after: expected[1] });
  expect(second).toMatchObject({ ok: true, body: { tenants: expected.slice(2), nextCursor: null, hasMore: false } });
  expect(await listTenants({})).toMatchObject({ ok: true, body: { tenants: expected, hasMore: false } });
});

test('only the library may call it: the gateway (and any other service) is refused by NATS', async () => {
  await expect(listTenants({}, 'gateway')).rejects.toThrow(/Permissions Violation for Publish/);
});

test('migration 0007 lists the tenants of the entities written before it (run as the schema owner, under forced row-level security)', async () => {
  const database = await createTestDatabase('catmig7');
  const sql = new pg.Client({ connectionString: database.url });
  try {
    const owner = database.urlAs(SCHEMA_OWNER_ROLE);
    const before = Object.fromEntries(Object.entries(catalogMigrations).filter(([name]) => name < '0007'));
    await migrateSchema({ url: owner, schema: 'catalog', role: 'catalog_app', migrations: before });
    await sql.connect();
    const [a, b] = [newId(), newId()].sort();
    await sql.query(
      `insert into catalog.entities (id, tenant_id, type, title) values ($1, $3, 'song', 'x'), ($2, $3, 'song', 'y'), ($4, $5, 'song', 'z')`,
      [newId(), newId(), a, newId(), b],
    );
    // 0007 and every later migration (each new one would otherwise have to be added here).
    expect(await migrateSchema({ url: owner, schema: 'catalog', role: 'catalog_app', migrations: catalogMigrations })).toEqual(
      Object.keys(catalogMigrations).filter((name) => name >= '0007'),
    );
    expect((await sql.query('select tenant_id from catalog.entity_tenants order by tenant_id')).rows).toEqual([
      { tenant_id: a },
      { tenant_id: b },
    ]);
    // Row-level security on entities is forced again.
    expect((await sql.query("select relforcerowsecurity from pg_class where oid = 'catalog.entities'::regclass")).rows).toEqual([
      { relforcerowsecurity: true },
    ]);
  } finally {
    await sql.end().catch(() => undefined);
    await database.drop();
  }
});
