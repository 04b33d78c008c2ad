import type { Entity } from '@catalog/contracts';
import { startHarness, type CatalogHarness } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catconcurrent');
});

afterAll(async () => {
  await h?.stop();
});

/**
 * The entity read and create run the same statement text for every request (prepared once per
 * connection), each with its own parameters: requests running at once must each get exactly their
 * own row and event.
 */
test('concurrent creations and reads each get their own values', async () => {
  const a = h.tenant();
  const inputs = Array.from({ length: 24 }, (_, i) => ({
    type: i % 3 === 0 ? 'jingle' : 'song',
    title: `Title ${i}`,
    ...(i % 2 === 0 ? { artist: `Artist ${i}` } : {}),
    ...(i % 4 === 0 ? { externalReferences: { dmrn: `DM-COMPILED-${i}` } } : {}),
  }));
  const created = await Promise.all(inputs.map((body) => a.ok<Entity>('createEntity', { body })));
  created.forEach((entity, i) => {
    expect(entity).toMatchObject({
      type: inputs[i]!.type,
      title: inputs[i]!.title,
      artist: inputs[i]!.artist ?? null,
      externalReferences: { dmrn: inputs[i]!.externalReferences?.dmrn ?? null },
    });
  });
  const read = await Promise.all(created.map((entity) => a.ok<Entity>('getEntity', { params: { id: entity.id } })));
  expect(read).toEqual(created);
  for (const [i, entity] of created.entries()) {
    const [event] = await h.outbox({ resourceId: entity.id });
    expect(event).toMatchObject({
      tenant_id: a.tenantId,
      type: 'entity.created',
      dmrn: inputs[i]!.externalReferences?.dmrn ?? null,
      data: { entityType: inputs[i]!.type },
    });
  }
});

test("another tenant's id read is 404, as a missing one", async () => {
  const owner = h.tenant();
  const other = h.tenant();
  const entity = await owner.ok<Entity>('createEntity', { body: { type: 'song', title: 'Mine' } });
  const reply = await other.call('getEntity', { params: { id: entity.id } });
  expect(reply.ok ? reply.status : reply.error.status).toBe(404);
});
