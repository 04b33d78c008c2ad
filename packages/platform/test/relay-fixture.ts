import { jetstreamManager } from '@nats-io/jetstream';
import {
  createDatabase,
  createOutboxRelaySupportV1,
  createOutboxTableV1,
  decodeBusEvent,
  inTenantTransaction,
  migrateSchema,
  newId,
  outboxFor,
  sql,
  startOutboxRelay,
  subjectsFor,
  type BusEvent,
  type Database,
  type Migrations,
  type NatsConnection,
  type OutboxEvent,
  type OutboxRelay,
  type Subjects,
} from '@catalog/platform';
import { createTestDatabase, testBus, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';

/** The schema whose outbox the relay suites publish. */
export const SCHEMA = 'relaytest';

const migrations: Migrations = {
  '0001_outbox': { up: (db) => createOutboxTableV1(db, SCHEMA) },
  '0002_outbox_relay': { up: (db) => createOutboxRelaySupportV1(db, SCHEMA) },
};

export interface RelayTestDb {
  outbox: { seq: string; id: string; published_at: Date | null };
}

/** An event of a new resource. */
export const created = (): OutboxEvent => ({ type: 'entity.created', resourceId: newId(), dmrn: null, data: { entityType: 'track' } });

/** Every message of the events stream, in stream order. */
export async function streamEvents(nc: NatsConnection, subjects: Subjects): Promise<Array<BusEvent & { subject: string }>> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(subjects.eventsStream);
  const events: Array<BusEvent & { subject: string }> = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
    const msg = await jsm.streams.getMessage(subjects.eventsStream, { seq });
    if (msg) events.push({ ...decodeBusEvent(msg.data)!, subject: msg.subject });
  }
  return events;
}

/**
 * A relay suite's database and helpers: an outbox schema in a Postgres cluster of the file's own
 * (the suites hold transactions open on purpose, so no other suite's relay waits for them), made
 * before the file's tests and dropped after them.
 */
export function relayFixture(label: string) {
  let testDb: TestDatabase;
  let database: Database<RelayTestDb>;
  const logger = testLogger(label);
  const tenant = newId();

  beforeAll(async () => {
    testDb = await createTestDatabase(label, { ownCluster: true });
    await migrateSchema({ url: testDb.url, schema: SCHEMA, role: `${SCHEMA}_app`, migrations });
    database = createDatabase<RelayTestDb>({ url: testDb.url, schema: SCHEMA, role: `${SCHEMA}_app` });
  });

  afterAll(async () => {
    await database.close();
    await testDb.drop();
  });

  return {
    tenant,
    get testDb(): TestDatabase {
      return testDb;
    },
    get database(): Database<RelayTestDb> {
      return database;
    },
    /** Records an `entity.updated` of `resourceId` in a transaction of its own; returns the event id. */
    record(resourceId: string, db = database.db): Promise<string> {
      return inTenantTransaction(db, tenant, async (trx) =>
        outboxFor(trx, SCHEMA, { tenantId: tenant, sourceSystem: 'test' }).record({
          type: 'entity.updated',
          resourceId,
          dmrn: null,
          data: { changedFields: ['title'] },
        }),
      );
    },
    relayFor(nc: NatsConnection, subjects: Subjects, extra: Partial<Parameters<typeof startOutboxRelay>[0]> = {}): OutboxRelay {
      return startOutboxRelay({
        schema: SCHEMA,
        connectionString: testDb.url,
        role: `${SCHEMA}_app`,
        nc,
        subjects,
        logger,
        retryMaxMs: 500,
        leaseRetryMs: 200,
        ...extra,
      });
    },
    async unpublished(): Promise<number> {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from relaytest.outbox where published_at is null`.execute(
        database.db,
      );
      return rows[0]!.n;
    },
    /** A test's own bus connection and subjects, over an empty outbox. */
    async freshBus(label: string): Promise<{ nc: NatsConnection; subjects: Subjects }> {
      await this.clearOutbox();
      return { nc: await testBus(`${label}-test`), subjects: subjectsFor(uniqueNatsPrefix(label)) };
    },
    async clearOutbox(): Promise<void> {
      const owner = createDatabase<RelayTestDb>({ url: testDb.url, schema: SCHEMA, role: 'postgres' });
      await sql`delete from relaytest.outbox`.execute(owner.db);
      await owner.close();
    },
  };
}
