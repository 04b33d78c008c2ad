import { expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

/**
 * Source-system bindings through the gateway (decision 0149): a key is bound to an integration of
 * its own organisation, by id (or, as before, by that integration's name), and its writes carry
 * the integration's name; a name the platform writes itself (`catalog`), another key's
 * `public-api:<keyId>`, or another organisation's integration is refused with the error body.
 */
const sut = useSystem({ database: true });

async function integrationOf(key: string, name: string): Promise<{ id: string; sourceSystem: string }> {
  const created = await sut.api.request('POST', '/api/v1/catalog/integrations', { key, body: { name, kind: 'playout' } });
  expect(created.status).toBe(201);
  return created.body;
}

/** The source system of the events of an entity the key creates now. */
async function writesAs(key: string): Promise<string[]> {
  const id = (await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'Bound' } })).body.id;
  const { rows } = await sut.db.query<{ source_system: string }>('select source_system from catalog.outbox where resource_id = $1', [id]);
  return rows.map((row) => row.source_system);
}

const bind = (keyId: string, body: unknown) => sut.api.admin('PUT', `/admin/v1/api-keys/${keyId}/source-system`, body);

test('a key is bound to its own organisation’s integration by id; its writes carry the integration’s name', async () => {
  const station = await sut.api.tenant();
  const connector = await sut.api.apiKey(station.orgId, { name: 'connector' });
  const integration = await integrationOf(station.key, 'playout-studio-a');

  const bound = await bind(connector.keyId, { integrationId: integration.id });
  expect(bound.status).toBe(200);
  expect(bound.body).toMatchObject({ id: connector.keyId, sourceSystem: 'playout-studio-a', integrationId: integration.id });
  expect(await writesAs(connector.key)).toEqual(['playout-studio-a']);
  const listed = await sut.api.admin('GET', `/admin/v1/organizations/${station.orgId}/api-keys`);
  expect(listed.body.apiKeys.find((k: { id: string }) => k.id === connector.keyId)).toMatchObject({ integrationId: integration.id });

  // By name, as clients did before: the organisation's integration of that name.
  const other = await integrationOf(station.key, 'playout-studio-b');
  expect((await bind(connector.keyId, { name: 'playout-studio-b' })).body).toMatchObject({
    sourceSystem: 'playout-studio-b',
    integrationId: other.id,
  });

  expect((await sut.api.admin('DELETE', `/admin/v1/api-keys/${connector.keyId}/source-system`)).status).toBe(204);
  expect(await writesAs(connector.key)).toEqual([`public-api:${connector.keyId}`]);
});

test('reserved names, another key’s name, another organisation’s integration and unknown names are refused', async () => {
  const station = await sut.api.tenant();
  const victim = await sut.api.tenant();
  const theirs = await integrationOf(victim.key, 'their-playout');

  for (const name of ['catalog', 'Library', `public-api:${victim.keyId}`, 'system:asset-retention']) {
    const refused = await bind(station.keyId, { name });
    expectError(refused, 400, 'reserved_source_system');
  }
  expectError(await bind(station.keyId, { integrationId: theirs.id }), 404, 'not_found');
  expectError(await bind(station.keyId, { name: 'their-playout' }), 404, 'not_found');
  expectError(await bind(station.keyId, { name: 'never-connected' }), 404, 'not_found');
  expectError(await bind(station.keyId, { integrationId: 'not-an-id' }), 400, 'invalid_body');
  expectError(await bind(station.keyId, {}), 400, 'invalid_body');
  expect((await sut.api.admin('GET', `/admin/v1/organizations/${station.orgId}/api-keys`)).body.apiKeys[0]).toMatchObject({
    sourceSystem: null,
    integrationId: null,
  });
  expect(await writesAs(station.key)).toEqual([`public-api:${station.keyId}`]);
});

test('an integration cannot take a reserved source system, given or derived, so no binding can reach one through it', async () => {
  const { key } = await sut.api.tenant();
  for (const sourceSystem of ['catalog', `public-api:${crypto.randomUUID()}`, 'system:sweeper']) {
    const created = await sut.api.request('POST', '/api/v1/catalog/integrations', {
      key,
      body: { name: 'Studio A playout', sourceSystem, kind: 'playout' },
    });
    expectError(created, 400, 'reserved_name');
  }
  expectError(
    await sut.api.request('POST', '/api/v1/catalog/integrations', { key, body: { name: 'Catalog', kind: 'playout' } }),
    400,
    'reserved_name',
  );
  // The name is free text: renaming changes what a person reads, never what the bound keys write as.
  const integration = await integrationOf(key, 'playout-ok');
  const renamed = await sut.api.request('PATCH', `/api/v1/catalog/integrations/${integration.id}`, { key, body: { name: 'gateway' } });
  expect(renamed.body).toMatchObject({ name: 'gateway', sourceSystem: 'playout-ok' });
});
