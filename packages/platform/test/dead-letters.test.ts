import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import {
  createMetricsRegistry,
  ensureEventsStream,
  platformCounter,
  startEventConsumer,
  subjectsFor,
  type EventConsumer,
  type MetricsRegistry,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import {
  createTestDatabase,
  eventually,
  publishEvent,
  readDeadLetters,
  startTcpProxy,
  testBus,
  testBusEvent,
  thingConsumerSettings,
  testLogger,
  uniqueNatsPrefix,
  untilConsumerSettled,
  type TcpProxy,
  type TestDatabase,
} from '@catalog/testing';

/**
 * Decision 0053 for the platform's event consumer: a message Postgres refuses is retried a few
 * times, then parked in the dead-letter stream with where it came from and why, and the consumer
 * moves on; a message that is no event is parked at once; Postgres away parks nothing.
 */
const logger = testLogger('dead-letters');
const DURABLE = 'test-applier';

let testDb: TestDatabase;
let nc: NatsConnection;
let proxy: TcpProxy;
let pool: pg.Pool;

beforeAll(async () => {
  testDb = await createTestDatabase('deadletters');
  const owner = new pg.Client({ connectionString: testDb.url });
  await owner.connect();
  // What a consumer applies events to: a tenant that must be a UUID, a source of 20 characters.
  await owner.query(
    'create table applied (id uuid primary key, tenant_id uuid not null, source varchar(20) not null, data jsonb not null)',
  );
  await owner.end();
  const target = new URL(testDb.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  pool = new pg.Pool({ connectionString: proxy.urlFor(testDb.url), max: 2, connectionTimeoutMillis: 2_000 });
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  nc = await testBus('dead-letters-test');
});

afterAll(async () => {
  await nc.drain();
  await pool.end();
  await proxy.close();
  await testDb.drop();
});

const event = testBusEvent;

async function appliedIds(): Promise<string[]> {
  const { rows } = await pool.query<{ id: string }>('select id from applied order by id');
  return rows.map((r) => r.id);
}

describe('a consumer parks what it cannot apply and moves on', () => {
  let subjects: Subjects;
  let metrics: MetricsRegistry;
  let consumer: EventConsumer | null = null;

  beforeEach(async () => {
    subjects = subjectsFor(uniqueNatsPrefix('dlq'));
    metrics = createMetricsRegistry();
    await ensureEventsStream(nc, subjects);
    consumer = startEventConsumer({
      nc,
      ...thingConsumerSettings(subjects, DURABLE),
      logger,
      metrics,
      handle: (e) =>
        pool.query('insert into applied (id, tenant_id, source, data) values ($1, $2, $3, $4) on conflict do nothing', [
          e.id,
          e.tenantId,
          e.sourceSystem,
          e.data,
        ]),
    });
  });

  afterEach(async () => {
    await consumer?.stop();
    await proxy.restore();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(subjects.eventsStream).catch(() => undefined);
    await jsm.streams.delete(subjects.deadLettersStream).catch(() => undefined);
  });

  test('values Postgres refuses and messages that are no event are parked with their reason; the events around them are applied', async () => {
    const good = [event(), event(), event()];
    const tooLong = event({ sourceSystem: 'a source system name far longer than twenty characters' });
    const withNul = event({ data: { note: 'a\u0000b' } });
    const seqs: Record<string, number> = {};
    seqs.first = await publishEvent(nc, subjects, good[0]!);
    seqs.tooLong = await publishEvent(nc, subjects, tooLong);
    seqs.second = await publishEvent(nc, subjects, good[1]!);
    seqs.garbage = await publishEvent(nc, subjects, { type: 'thing.happened', bytes: new TextEncoder().encode('{"not":"an event"}') });
    seqs.withNul = await publishEvent(nc, subjects, withNul);
    seqs.last = await publishEvent(nc, subjects, good[2]!);

    await untilConsumerSettled(nc, subjects, DURABLE, seqs.last!);
    expect(await appliedIds()).toEqual(expect.arrayContaining(good.map((e) => e.id)));
    expect(await appliedIds()).not.toEqual(expect.arrayContaining([tooLong.id]));

    const parked = await readDeadLetters(nc, subjects);
    expect(parked.map((p) => p.streamSeq)).toEqual([seqs.tooLong, seqs.garbage, seqs.withNul]);
    const [long, garbage, nul] = parked;
    expect(long).toMatchObject({ subject: subjects.events('catalog', 'thing.happened'), consumer: DURABLE, attempts: 3 });
    expect(long!.reason).toMatch(/^rejected: 22001: value too long/);
    expect(JSON.parse(new TextDecoder().decode(long!.data)).id).toBe(tooLong.id);
    expect(garbage).toMatchObject({ consumer: DURABLE, attempts: 0, reason: 'malformed: not an event of the events stream' });
    expect(new TextDecoder().decode(garbage!.data)).toBe('{"not":"an event"}');
    expect(nul!.reason).toMatch(/^rejected: 22P05: /);

    const counter = platformCounter(metrics, 'deadLetters');
    expect(counter.value({ consumer: DURABLE, reason: 'rejected' })).toBe(2);
    expect(counter.value({ consumer: DURABLE, reason: 'malformed' })).toBe(1);
    expect(metrics.render()).toContain(`catalog_dead_letters_total{consumer="${DURABLE}",reason="rejected"} 2`);
  });

  test('Postgres unavailable for a while parks nothing: the events wait, then are applied in order', async () => {
    const before = event();
    await untilConsumerSettled(nc, subjects, DURABLE, await publishEvent(nc, subjects, before));
    await proxy.cut();
    const during = [event(), event(), event()];
    let lastSeq = 0;
    for (const e of during) lastSeq = await publishEvent(nc, subjects, e);
    // Far more failed attempts than maxAttempts (3) while it is away.
    const retries = platformCounter(metrics, 'retries');
    await eventually(async () => (retries.value({ consumer: DURABLE, kind: 'transient' }) >= 10 ? true : undefined), 20_000);
    expect(retries.value({ consumer: DURABLE, kind: 'rejected' })).toBe(0);
    await proxy.restore();
    await untilConsumerSettled(nc, subjects, DURABLE, lastSeq);
    expect(await appliedIds()).toEqual(expect.arrayContaining([before, ...during].map((e) => e.id)));
    expect(await readDeadLetters(nc, subjects)).toEqual([]);
    expect(platformCounter(metrics, 'deadLetters').value({ consumer: DURABLE, reason: 'rejected' })).toBe(0);
  });
});
