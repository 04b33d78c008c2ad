import pg from 'pg';
import { eventType, internalOperations, operationsOf, routesOf, type Entity } from '@catalog/contracts';
import { callRpc, migrateSchema, newId, readConfig, subjectsFor } from '@catalog/platform';
import { createTestDatabase, serviceEnvironment, testBus, testCallContext, testLogger, uniqueNatsPrefix } from '@catalog/testing';
import { catalogConfig, catalogMigrations, catalogOperations, startCatalogService } from '../src/index.js';
import { assetClient } from '../src/integration/asset-client.js';
import { startHarness, type CatalogHarness } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catservice');
});

afterAll(async () => {
  await h?.stop();
});

describe('service', () => {
  test('answers /healthz and /readyz on its HTTP port; stop() stops its endpoints', async () => {
    const natsPrefix = uniqueNatsPrefix('catready');
    const config = readConfig(catalogConfig, {
      ...(await serviceEnvironment(h.database, ['catalog'])),
      NATS_PREFIX: natsPrefix,
      CATALOG_HTTP_PORT: '0', // any free one, read back from the listener
      HTTP_HOST: '127.0.0.1',
    });
    const service = await startCatalogService(config, { logger: testLogger('catalog') });
    const port = service.http!.port;
    const caller = await testBus('catready-caller');
    let stopped = false;
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok' });
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
      const call = { tenantId: newId(), keyId: null, sourceSystem: 'test', requestId: newId() };
      const rpc = { nc: caller, subjects: subjectsFor(natsPrefix), callContext: testCallContext() };
      const reply = await callRpc(rpc, 'catalog', 'listEntities', { params: {}, query: {}, body: null }, call);
      expect(reply).toEqual({ ok: true, status: 200, body: { entities: [], nextCursor: null, hasMore: false } });
      await service.stop();
      stopped = true;
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      await caller.drain();
      if (!stopped) await service.stop();
    }
  });

  test('serves exactly its operations of the table', () => {
    const assets = assetClient({ nc: h.service.nc, subjects: h.service.subjects, callContext: h.service.callContext });
    const operations = catalogOperations({
      db: h.service.database.db,
      assets,
      maxVersionsPerEntity: 10,
      maxQueuedImportsPerTenant: 20,
      logger: h.service.logger,
    });
    const served = operations.map((operation) => operation.definition.operationId).sort();
    expect(served).toEqual(
      operationsOf('catalog')
        .map((operation) => operation.operationId)
        .sort(),
    );
    // Its public routes, and the internal operations the analysis and library services call.
    expect(served).toEqual(
      [
        ...routesOf('catalog').map((route) => route.operationId),
        ...internalOperations.filter((operation) => operation.service === 'catalog').map((operation) => operation.operationId),
      ].sort(),
    );
  });

  test('changedFields names the changed fields in the registry order, whatever the order of the PATCH', async () => {
    const a = h.tenant();
    const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'one', artist: 'x' } });
    await a.ok('updateEntity', { params: { id: entity.id }, body: { artist: 'y', title: 'two', type: 'jingle' } });
    await a.ok('updateEntity', { params: { id: entity.id }, body: { artist: null, title: 'two' } });
    const events = await h.outbox({ resourceId: entity.id, type: 'entity.updated' });
    expect(events.map((e) => e.data)).toEqual([{ changedFields: ['type', 'title', 'artist'] }, { changedFields: ['artist'] }]);
    const schema = eventType('entity.updated').data as unknown as {
      properties: { changedFields: { items: { anyOf: Array<{ const: string }> } } };
    };
    const registryOrder = schema.properties.changedFields.items.anyOf.map((s) => s.const);
    expect(registryOrder.filter((f) => f !== 'externalReferences')).toEqual(['type', 'title', 'artist']);
  });

  test('migrations are recorded in the catalog schema and re-running them applies nothing', async () => {
    const again = await migrateSchema({ url: h.database.url, schema: 'catalog', role: 'catalog_app', migrations: catalogMigrations });
    expect(again).toEqual([]);
    const { rows } = await h.sql.query<{ name: string }>('select name from catalog.kysely_migration order by name');
    expect(rows.map((r) => r.name)).toEqual([
      '0001_entities',
      '0002_versions',
      '0003_outbox_relay',
      '0004_attach_intents',
      '0005_attach_intent_claims',
      '0006_tenant_or_system_rls',
      '0007_entity_tenants',
      '0008_cue_point_markers',
      '0009_integrations',
      '0010_assignments',
      '0011_import_jobs',
      '0012_entity_import_keys',
      '0013_relations',
      '0014_molecules',
      '0015_unfinished_jobs_index',
      '0016_integration_source_system',
    ]);
  });

  test('migration 0005 leaves one unclaimed intent per asset: of two left by the former design, the newest', async () => {
    const database = await createTestDatabase('catmig5');
    const sql = new pg.Client({ connectionString: database.url });
    try {
      const before = Object.fromEntries(Object.entries(catalogMigrations).filter(([name]) => name < '0005'));
      await migrateSchema({ url: database.url, schema: 'catalog', role: 'catalog_app', migrations: before });
      await sql.connect();
      const [tenant, asset, older, newer, other] = [newId(), newId(), newId(), newId(), newId()];
      await sql.query(
        `insert into catalog.attach_intents (version_id, tenant_id, asset_id, source_system) values ($1, $3, $4, 's'), ($2, $3, $4, 's'), ($5, $3, $5, 's')`,
        [older, newer, tenant, asset, other],
      );
      expect(await migrateSchema({ url: database.url, schema: 'catalog', role: 'catalog_app', migrations: catalogMigrations })).toEqual([
        '0005_attach_intent_claims',
        '0006_tenant_or_system_rls',
        '0007_entity_tenants',
        '0008_cue_point_markers',
        '0009_integrations',
        '0010_assignments',
        '0011_import_jobs',
        '0012_entity_import_keys',
        '0013_relations',
        '0014_molecules',
        '0015_unfinished_jobs_index',
        '0016_integration_source_system',
      ]);
      const { rows } = await sql.query(
        'select version_id, claimed_until is not null as claimed from catalog.attach_intents order by version_id',
      );
      expect(rows).toEqual([
        { version_id: older, claimed: true },
        { version_id: newer, claimed: false },
        { version_id: other, claimed: false },
      ]);
      await expect(
        sql.query(`insert into catalog.attach_intents (version_id, tenant_id, asset_id, source_system) values ($1, $2, $3, 's')`, [
          newId(),
          tenant,
          asset,
        ]),
      ).rejects.toMatchObject({
        code: '23505',
        constraint: 'attach_intents_asset_key',
      });
    } finally {
      await sql.end().catch(() => undefined);
      await database.drop();
    }
  });

  test('the tables are under row-level security, also for the owner', async () => {
    const { rows } = await h.sql.query<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
      `select c.relname, c.relrowsecurity, c.relforcerowsecurity
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'catalog' and c.relname in ('entities', 'entity_types') order by c.relname`,
    );
    expect(rows).toEqual([
      { relname: 'entities', relrowsecurity: true, relforcerowsecurity: true },
      { relname: 'entity_types', relrowsecurity: true, relforcerowsecurity: true },
    ]);
  });

  test('the working role sees no rows without a tenant and only its tenant with one', async () => {
    const a = h.tenant();
    await a.ok('createEntity', { body: { type: 'song', title: 'secret' } });
    await a.ok('putEntityType', { params: { name: 'song' }, body: { automaticAnalyses: [] } });
    const client = new pg.Client({ connectionString: h.database.url });
    await client.connect();
    try {
      await client.query('set role catalog_app');
      for (const table of ['catalog.entities', 'catalog.entity_types']) {
        expect((await client.query(`select * from ${table}`)).rows).toEqual([]);
      }
      await client.query('begin');
      await client.query(`select set_config('app.tenant_id', $1, true)`, [newId()]);
      expect((await client.query('select * from catalog.entities')).rows).toEqual([]);
      await client.query('rollback');
      await client.query('begin');
      await client.query(`select set_config('app.tenant_id', $1, true)`, [a.tenantId]);
      expect((await client.query('select title from catalog.entities')).rows).toEqual([{ title: 'secret' }]);
      await expect(
        client.query(`insert into catalog.entities (id, tenant_id, type, title) values ($1, $2, 'song', 'x')`, [newId(), newId()]),
      ).rejects.toThrow(/row-level security/);
      await client.query('rollback');
    } finally {
      await client.end();
    }
  });

  test('the listing uses the keyset index', async () => {
    const client = new pg.Client({ connectionString: h.database.url });
    await client.connect();
    try {
      await client.query('set enable_seqscan = off');
      const plan = await client.query(`explain select * from catalog.entities where tenant_id = $1 and id > $2 order by id limit 51`, [
        newId(),
        newId(),
      ]);
      expect(JSON.stringify(plan.rows)).toMatch(/entities_tenant_id_idx/);
      const typed = await client.query(
        `explain select * from catalog.entities where tenant_id = $1 and type = 'song' and id > $2 order by id limit 51`,
        [newId(), newId()],
      );
      expect(JSON.stringify(typed.rows)).toMatch(/entities_tenant_type_id_idx/);
    } finally {
      await client.end();
    }
  });
});
