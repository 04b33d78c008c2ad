import pg from 'pg';
import { envelopeOf, newId, subjectsFor, type BusEvent, type ServiceRuntime } from '@catalog/platform';
import { createTestDatabase, eventually, testInfrastructure, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { busEvent, eventsEnv, feedClient, readAll, startEvents, type FeedClient } from './support.js';
import type { EventsDb } from '../src/persistence/tables.js';

/**
 * The read side of the feed's snapshot guard (decision 0030, `feedPageStatement`): a page only
 * returns rows whose transaction is below the xmin of its own snapshot. A feed transaction still
 * open holds later commits back; without the guard a client would read past them and never see
 * the held row, which gets the smaller position when it commits. (Run against the page statement
 * without the `pg_snapshot_xmin` condition, this test fails: the held row is skipped.)
 */
let testDb: TestDatabase;
let events: ServiceRuntime<EventsDb>;
let client: FeedClient;

beforeAll(async () => {
  // It holds a transaction open on purpose: on a cluster of its own, so no other suite's feed waits for it.
  testDb = await createTestDatabase('snapshotguard', { ownCluster: true });
  const prefix = uniqueNatsPrefix('guard');
  events = await startEvents(await eventsEnv(testDb, testInfrastructure().natsUrl, prefix));
  client = await feedClient(testInfrastructure().natsUrl, subjectsFor(prefix));
});

afterAll(async () => {
  await client.close();
  await events.stop();
  await testDb.drop();
});

/** Inserts a feed row as the feed writer would, on `connection` (in whatever transaction it has open). */
async function insertFeedRow(connection: pg.Client, event: BusEvent): Promise<void> {
  await connection.query(
    `insert into events.feed (id, tenant_id, product, type, occurred_at, resource_kind, resource_id, dmrn, source_system, batch_id, schema_version, data, body)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      event.id,
      event.tenantId,
      event.product,
      event.type,
      event.occurredAt,
      event.resourceKind,
      event.resourceId,
      event.dmrn,
      event.sourceSystem,
      event.batchId,
      event.schemaVersion,
      event.data,
      JSON.stringify(envelopeOf(event)),
    ],
  );
}

async function connect(): Promise<pg.Client> {
  const connection = new pg.Client({ connectionString: testDb.url });
  await connection.connect();
  return connection;
}

test('a feed row whose transaction is still open is never skipped: later commits wait behind it', async () => {
  const tenant = newId();
  const [first, held, later] = [busEvent(tenant), busEvent(tenant), busEvent(tenant)];
  const committer = await connect();
  const holder = await connect();
  try {
    await insertFeedRow(committer, first);
    // Rows show once every transaction of the cluster older than them ended (other test files
    // share the server), so the reads that expect rows wait for them.
    const start = await eventually(async () => {
      const page = await readAll(client, tenant);
      return page.ids.length > 0 ? page : undefined;
    });
    expect(start.ids).toEqual([first.id]);

    // A second connection inserts a row and keeps its transaction open; a later row commits.
    await holder.query('begin');
    await insertFeedRow(holder, held);
    await insertFeedRow(committer, later);

    // The client polls from its cursor: the later row is held back, not served ahead of the open one.
    const whileOpen = await readAll(client, tenant, start.cursor);
    expect(whileOpen.ids).toEqual([]);

    await holder.query('commit');
    const afterwards = await eventually(async () => {
      const page = await readAll(client, tenant, whileOpen.cursor ?? start.cursor);
      return page.ids.length >= 2 ? page : undefined;
    });
    expect(afterwards.ids).toEqual([held.id, later.id]);
  } finally {
    await holder.end();
    await committer.end();
  }
});
