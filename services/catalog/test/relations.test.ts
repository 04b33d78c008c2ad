import { newId } from '@catalog/platform';
import type { RpcReply } from '@catalog/platform';
import type { Entity, Relation, RelationList } from '@catalog/contracts';
import { eventually } from '@catalog/testing';
import { startHarness, type CatalogHarness, type Caller } from './support.js';

let h: CatalogHarness;

beforeAll(async () => {
  // The cycle race test holds the entities locked in a transaction of its own until both creates wait.
  h = await startHarness('catrelations', { ownCluster: true });
});

afterAll(async () => {
  await h?.stop();
});

async function entity(caller: Caller, title: string): Promise<string> {
  return (await caller.ok<Entity>('createEntity', { body: { type: 'song', title } })).id as string;
}

/** A reply as status, body (a success's relation; undefined on a failure) and error (a failure). */
interface Answer {
  status: number;
  body: Relation;
  error?: { status: number; code: string; message: string };
}

const answer = (reply: RpcReply): Answer => ({
  status: reply.ok ? reply.status : reply.error.status,
  body: (reply.ok ? reply.body : undefined) as Relation,
  ...(reply.ok ? {} : { error: reply.error }),
});

const relate = async (caller: Caller, sourceId: string, body: Record<string, unknown>): Promise<Answer> =>
  answer(await caller.call('createRelation', { params: { id: sourceId }, body }));

const errorOf = (reply: RpcReply | Answer) => ('ok' in reply ? answer(reply) : reply).error!;

const list = (caller: Caller, entityId: string, query: Record<string, unknown> = {}) =>
  caller.ok<RelationList>('listRelations', { params: { id: entityId }, query });

describe('relations (decision 0136)', () => {
  test('a relation is created once (201), the same type and target again answer it (200), its event in the outbox', async () => {
    const a = h.tenant();
    const [remix, original] = [await entity(a, 'Remix'), await entity(a, 'Original')];
    const created = await relate(a, remix, { type: 'remix_of', targetId: original, attributes: { remixer: 'DJ X', year: 2024 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'remix_of',
      sourceId: remix,
      targetId: original,
      direction: 'outgoing',
      attributes: { remixer: 'DJ X', year: 2024 },
    });
    const again = await relate(a, remix, { type: 'remix_of', targetId: original });
    expect({ status: again.status, body: again.body }).toEqual({ status: 200, body: created.body });
    const events = await h.outbox({ tenantId: a.tenantId, type: 'relation.created' });
    expect(events.map((e) => [e.resource_kind, e.resource_id, e.dmrn, e.data])).toEqual([
      ['relation', created.body.id, null, { type: 'remix_of', sourceId: remix, targetId: original }],
    ]);
  });

  test('same_work_as is symmetric: one per pair whichever way, listed from both ends as symmetric', async () => {
    const a = h.tenant();
    const [radio, album] = [await entity(a, 'Radio'), await entity(a, 'Album')];
    const created = await relate(a, radio, { type: 'same_work_as', targetId: album });
    expect(created.status).toBe(201);
    const reverse = await relate(a, album, { type: 'same_work_as', targetId: radio });
    expect(reverse.status).toBe(200);
    expect(reverse.body.id).toBe(created.body.id);
    for (const [end, direction] of [
      [radio, 'outgoing'],
      [album, 'outgoing'],
      [radio, 'incoming'],
      [album, 'incoming'],
    ] as const) {
      const page = await list(a, end, { direction });
      expect(page.relations.map((r) => [r.id, r.direction])).toEqual([[created.body.id, 'symmetric']]);
    }
  });

  test('no relation to itself (400), to a missing or another tenant’s entity (404 as missing), bad attributes (400)', async () => {
    const a = h.tenant();
    const b = h.tenant();
    const mine = await entity(a, 'Mine');
    const theirs = await entity(b, 'Theirs');
    expect(errorOf(await relate(a, mine, { type: 'samples', targetId: mine }))).toMatchObject({ status: 400, code: 'self_relation' });
    const foreign = errorOf(await relate(a, mine, { type: 'samples', targetId: theirs }));
    const missing = errorOf(await relate(a, mine, { type: 'samples', targetId: newId() }));
    expect(foreign).toEqual(missing);
    expect(foreign).toMatchObject({ status: 404, code: 'not_found' });
    expect(errorOf(await relate(a, theirs, { type: 'samples', targetId: mine }))).toEqual(missing);
    expect(errorOf(await relate(a, mine, { type: 'inspired_by', targetId: newId() })).status).toBe(400);
    const tooMany = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, i]));
    expect(errorOf(await relate(a, mine, { type: 'samples', targetId: newId(), attributes: tooMany })).status).toBe(400);
    expect(errorOf(await relate(a, mine, { type: 'samples', targetId: newId(), attributes: { nested: { x: 1 } } })).status).toBe(400);
    expect(errorOf(await relate(a, mine, { type: 'samples', targetId: newId(), attributes: { 'Bad-Name': 1 } })).status).toBe(400);
  });

  test('part_of, remix_of and edit_of form no cycle (409 relation_cycle); other types may', async () => {
    const a = h.tenant();
    const [x, y, z] = [await entity(a, 'X'), await entity(a, 'Y'), await entity(a, 'Z')];
    expect((await relate(a, x, { type: 'part_of', targetId: y })).status).toBe(201);
    expect((await relate(a, y, { type: 'part_of', targetId: z })).status).toBe(201);
    expect(errorOf(await relate(a, z, { type: 'part_of', targetId: x }))).toMatchObject({ status: 409, code: 'relation_cycle' });
    // remix_of and edit_of are one derivation graph.
    expect((await relate(a, x, { type: 'remix_of', targetId: y })).status).toBe(201);
    expect(errorOf(await relate(a, y, { type: 'edit_of', targetId: x }))).toMatchObject({ status: 409, code: 'relation_cycle' });
    // Another type closes no cycle of these.
    expect((await relate(a, z, { type: 'samples', targetId: x })).status).toBe(201);
    expect((await relate(a, x, { type: 'samples', targetId: z })).status).toBe(201);
  });

  /**
   * Runs `requests` while the entities are locked by a transaction of the test, and lets them go
   * only once every one is waiting on a lock: all of them are then in flight at once, each past
   * its start and before its cycle check, so the check cannot be passed by one finishing first.
   */
  async function allInFlight<T>(entityIds: readonly string[], requests: () => Array<Promise<T>>): Promise<T[]> {
    await h.sql.query('begin');
    let answers!: Promise<T[]>;
    try {
      await h.sql.query('select id from catalog.entities where id = any($1::uuid[]) for update', [entityIds]);
      const pending = requests();
      answers = Promise.all(pending);
      const waiters = pending.length;
      await eventually(async () => {
        // pg_stat_activity is read once per transaction unless its snapshot is cleared.
        await h.sql.query('select pg_stat_clear_snapshot()');
        const { rows } = await h.sql.query<{ waiting: number }>(
          `select count(*)::int as waiting from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
        );
        return rows[0]!.waiting >= waiters ? true : undefined;
      });
    } finally {
      await h.sql.query('commit');
    }
    return answers;
  }

  test('two requests that together would close a cycle, both in flight at once: exactly one wins, every time', async () => {
    const a = h.tenant();
    for (let round = 0; round < 6; round += 1) {
      const [x, y] = [await entity(a, `X${round}`), await entity(a, `Y${round}`)];
      const type = ['part_of', 'remix_of', 'edit_of'][round % 3]!;
      // remix_of and edit_of are one derivation graph: the second request may use the other type.
      const otherType = type === 'part_of' ? 'part_of' : type === 'remix_of' ? 'edit_of' : 'remix_of';
      const answers = await allInFlight([x, y], () => [
        relate(a, x, { type, targetId: y }),
        relate(a, y, { type: otherType, targetId: x }),
      ]);
      expect({ round, statuses: answers.map((r) => r.status).sort() }).toEqual({ round, statuses: [201, 409] });
      expect(answers.find((r) => r.status === 409)!.error).toMatchObject({ code: 'relation_cycle' });
    }
    // A three-entity cycle closed by three requests at once: two of them pass.
    for (let round = 0; round < 3; round += 1) {
      const ids = [await entity(a, 'P'), await entity(a, 'Q'), await entity(a, 'R')];
      const answers = await allInFlight(ids, () => ids.map((id, i) => relate(a, id, { type: 'edit_of', targetId: ids[(i + 1) % 3]! })));
      expect({ round, created: answers.filter((r) => r.status === 201).length }).toEqual({ round, created: 2 });
    }
  });

  test('the same relation asked twice at once is created once', async () => {
    const a = h.tenant();
    for (let round = 0; round < 10; round += 1) {
      const [x, y] = [await entity(a, 'X'), await entity(a, 'Y')];
      const answers = await Promise.all([
        relate(a, x, { type: 'samples', targetId: y }),
        relate(a, y, { type: 'same_work_as', targetId: x }),
        relate(a, x, { type: 'samples', targetId: y }),
        relate(a, x, { type: 'same_work_as', targetId: y }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 201, 201]);
      expect(new Set(answers.map((r) => r.body.id)).size).toBe(2);
    }
  });

  test('listing: directions, type filter, pages; 404 for a missing entity', async () => {
    const a = h.tenant();
    const [hub, p, q, r] = [await entity(a, 'Hub'), await entity(a, 'P'), await entity(a, 'Q'), await entity(a, 'R')];
    const out1 = (await relate(a, hub, { type: 'samples', targetId: p })).body;
    const in1 = (await relate(a, q, { type: 'jingle_for', targetId: hub })).body;
    const out2 = (await relate(a, hub, { type: 'cover_of', targetId: r })).body;
    const ids = (page: RelationList) => page.relations.map((x) => [x.id, x.direction]);
    expect(ids(await list(a, hub))).toEqual([
      [out1.id, 'outgoing'],
      [in1.id, 'incoming'],
      [out2.id, 'outgoing'],
    ]);
    expect(ids(await list(a, hub, { direction: 'outgoing' }))).toEqual([
      [out1.id, 'outgoing'],
      [out2.id, 'outgoing'],
    ]);
    expect(ids(await list(a, hub, { direction: 'incoming' }))).toEqual([[in1.id, 'incoming']]);
    expect(ids(await list(a, hub, { type: 'cover_of' }))).toEqual([[out2.id, 'outgoing']]);
    const first = await list(a, hub, { limit: 2 });
    expect(first).toMatchObject({ hasMore: true });
    const second = await list(a, hub, { limit: 2, after: first.nextCursor });
    expect([...ids(first), ...ids(second)]).toEqual(ids(await list(a, hub)));
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    expect(await list(a, p)).toMatchObject({ relations: [{ id: out1.id, direction: 'incoming' }] });
    expect(errorOf(await a.call('listRelations', { params: { id: newId() }, query: {} }))).toMatchObject({ status: 404 });
    expect(errorOf(await a.call('listRelations', { params: { id: hub }, query: { after: 'bogus' } }))).toMatchObject({
      status: 400,
      code: 'invalid_cursor',
    });
  });

  test('deleting a relation from either end records relation.deleted; an unknown one is 404', async () => {
    const a = h.tenant();
    const [x, y] = [await entity(a, 'X'), await entity(a, 'Y')];
    const rel = (await relate(a, x, { type: 'part_of', targetId: y })).body;
    const other = await entity(a, 'Other');
    expect(errorOf(await a.call('deleteRelation', { params: { id: other, relationId: rel.id } }))).toMatchObject({
      status: 404,
      message: 'relation not found',
    });
    expect(errorOf(await a.call('deleteRelation', { params: { id: newId(), relationId: rel.id } }))).toMatchObject({
      status: 404,
      message: 'entity not found',
    });
    expect(answer(await a.call('deleteRelation', { params: { id: y, relationId: rel.id } })).status).toBe(204);
    expect(errorOf(await a.call('deleteRelation', { params: { id: y, relationId: rel.id } })).status).toBe(404);
    const deleted = await h.outbox({ resourceId: rel.id, type: 'relation.deleted' });
    expect(deleted.map((e) => e.data)).toEqual([{ type: 'part_of', sourceId: x, targetId: y }]);
    expect((await list(a, x)).relations).toEqual([]);
  });

  test('deleting an entity deletes its relations both ways, each with relation.deleted before entity.deleted, in one transaction', async () => {
    const a = h.tenant();
    const [doomed, p, q] = [await entity(a, 'Doomed'), await entity(a, 'P'), await entity(a, 'Q')];
    const out = (await relate(a, doomed, { type: 'part_of', targetId: p })).body;
    const inc = (await relate(a, q, { type: 'same_work_as', targetId: doomed })).body;
    const kept = (await relate(a, p, { type: 'samples', targetId: q })).body;
    expect(answer(await a.call('deleteEntity', { params: { id: doomed } })).status).toBe(204);
    const rows = (await h.outbox({ tenantId: a.tenantId })).filter((e) => e.type === 'relation.deleted' || e.type === 'entity.deleted');
    expect(rows.map((e) => [e.type, e.resource_id])).toEqual([
      ['relation.deleted', out.id],
      ['relation.deleted', inc.id],
      ['entity.deleted', doomed],
    ]);
    expect(new Set(rows.map((e) => e.tx_id)).size).toBe(1);
    expect((await list(a, p)).relations.map((r) => r.id)).toEqual([kept.id]);
    expect((await list(a, q)).relations.map((r) => r.id)).toEqual([kept.id]);
  });

  test('entities deleted while relations to them are created: no relation outlives its entities, every relation deleted has its event', async () => {
    const a = h.tenant();
    for (let round = 0; round < 10; round += 1) {
      const [x, y, z] = [await entity(a, 'X'), await entity(a, 'Y'), await entity(a, 'Z')];
      await relate(a, y, { type: 'samples', targetId: z });
      const answers = await Promise.all([
        relate(a, x, { type: 'samples', targetId: y }),
        a.call('deleteEntity', { params: { id: y } }).then(answer),
        relate(a, z, { type: 'part_of', targetId: y }),
        a.call('deleteEntity', { params: { id: z } }).then(answer),
      ]);
      expect(answers[1]!.status).toBe(204);
      expect(answers[3]!.status).toBe(204);
      const left = await h.sql.query('select id from catalog.relations where source_id = any($1) or target_id = any($1)', [[x, y, z]]);
      expect(left.rows).toEqual([]);
      const created = (await h.outbox({ tenantId: a.tenantId, type: 'relation.created' })).map((e) => e.resource_id);
      const deleted = (await h.outbox({ tenantId: a.tenantId, type: 'relation.deleted' })).map((e) => e.resource_id);
      expect([...deleted].sort()).toEqual([...created].sort());
    }
  });
});
