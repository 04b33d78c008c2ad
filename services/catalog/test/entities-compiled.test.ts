import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { compiledOnce, placeholder } from '../src/persistence/entities-compiled.js';
import type { CatalogDb } from '../src/persistence/tables.js';
import { startHarness, type CatalogHarness } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catcompiled');
});

afterAll(async () => {
  await h?.stop();
});

/**
 * The entity read and create run statements compiled once (issue 15, item 2), each request
 * putting its own values in the template's parameters: requests running at once must each get
 * exactly their own row and event.
 */
test('concurrent creations and reads through the compiled statements each get their own values', async () => {
  const a = h.tenant();
  const inputs = Array.from({ length: 24 }, (_, i) => ({
    type: i % 3 === 0 ? 'jingle' : 'song',
    title: `Title ${i}`,
    ...(i % 2 === 0 ? { artist: `Artist ${i}` } : {}),
    ...(i % 4 === 0 ? { externalReferences: { dmrn: `DM-COMPILED-${i}` } } : {}),
  }));
  const created = await Promise.all(inputs.map((body) => a.ok('createEntity', { body })));
  created.forEach((entity, i) => {
    expect(entity).toMatchObject({
      type: inputs[i]!.type,
      title: inputs[i]!.title,
      artist: inputs[i]!.artist ?? null,
      externalReferences: { dmrn: inputs[i]!.externalReferences?.dmrn ?? null },
    });
  });
  const read = await Promise.all(created.map((entity) => a.ok('getEntity', { params: { id: entity.id } })));
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

test("another tenant's id read through the compiled statement is 404, as a missing one", async () => {
  const owner = h.tenant();
  const other = h.tenant();
  const entity = await owner.ok('createEntity', { body: { type: 'song', title: 'Mine' } });
  const reply = await other.call('getEntity', { params: { id: entity.id } });
  expect(reply.ok ? reply.status : reply.error.status).toBe(404);
});

test('a builder that puts an argument into the SQL text instead of a parameter is refused at its first run', async () => {
  const db = new Kysely<CatalogDb>({ dialect: new PostgresDialect({ pool: new pg.Pool({ max: 1 }) }) });
  try {
    const statement = compiledOnce<{ id: string }, { id: string }>({ id: placeholder('id') }, (kysely, args) =>
      kysely.selectFrom('entities').select('id').where('id', '=', sql.lit(args.id)).compile(),
    );
    await expect(statement(db, { id: 'x' })).rejects.toThrow(/does not take id as parameters/);
  } finally {
    await db.destroy();
  }
});
