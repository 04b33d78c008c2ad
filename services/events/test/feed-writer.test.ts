import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { encodeBusEvent, ensureDurableConsumer, ensureEventsStream, newId, subjectsFor, type ServiceRuntime } from '@catalog/platform';
import { eventually, testInfrastructure, uniqueNatsPrefix } from '@catalog/testing';
import { useDatabaseAndBus } from './database-and-bus.js';
import { busEvent, eventsEnv, feedClient, readAll, startEvents } from './support.js';
import type { EventsDb } from '../src/persistence/tables.js';

const shared = useDatabaseAndBus('feedwriter', 'feed-writer-test');

test('messages delivered to a writer that died are read from the stream at once, not after the ack wait', async () => {
  const prefix = uniqueNatsPrefix('gap');
  const subjects = subjectsFor(prefix);
  const durable = 'gap-test';
  await ensureEventsStream(shared.nc, subjects);
  await ensureDurableConsumer(shared.nc, { stream: subjects.eventsStream, durable, ackWaitMs: 120_000, maxAckPending: 5000 });
  const tenant = newId();
  const published = Array.from({ length: 10 }, () => busEvent(tenant));
  const js = jetstream(shared.nc);
  for (const e of published.slice(0, 5)) await js.publish(subjects.events('catalog', e.type), encodeBusEvent(e), { msgID: e.id });

  // A writer takes the first five and dies without acking them: they stay pending for 2 minutes.
  const consumer = await js.consumers.get(subjects.eventsStream, durable);
  const taken: JsMsg[] = [];
  const batch = await consumer.fetch({ max_messages: 5, expires: 2000 });
  for await (const msg of batch) taken.push(msg);
  expect(taken).toHaveLength(5);

  for (const e of published.slice(5)) await js.publish(subjects.events('catalog', e.type), encodeBusEvent(e), { msgID: e.id });
  let events: ServiceRuntime<EventsDb> | null = null;
  const client = await feedClient(testInfrastructure().natsUrl, subjects);
  try {
    events = await startEvents(
      await eventsEnv(shared.testDb, testInfrastructure().natsUrl, prefix, {
        FEED_CONSUMER_NAME: durable,
        FEED_CONSUMER_ACK_WAIT_MS: '120000',
      }),
    );
    const all = await eventually(async () => {
      const read = await readAll(client, tenant);
      return read.ids.length === 10 ? read : undefined;
    }, 30_000);
    expect(all.ids).toEqual(published.map((e) => e.id));
    // Nothing was redelivered: the five pending messages were read from the stream by sequence.
    const info = await (await jetstreamManager(shared.nc)).consumers.info(subjects.eventsStream, durable);
    expect(info.num_redelivered).toBe(0);
  } finally {
    await client.close();
    await events?.stop();
  }
});

test('a writer replica that is not the leader takes over when the leader stops', async () => {
  const prefix = uniqueNatsPrefix('takeover');
  const subjects = subjectsFor(prefix);
  const env = await eventsEnv(shared.testDb, testInfrastructure().natsUrl, prefix, { FEED_CONSUMER_NAME: 'takeover' });
  const first = await startEvents(env);
  const second = await startEvents(env);
  const client = await feedClient(testInfrastructure().natsUrl, subjects);
  const js = jetstream(shared.nc);
  const tenant = newId();
  try {
    const before = busEvent(tenant);
    await js.publish(subjects.events('catalog', before.type), encodeBusEvent(before), { msgID: before.id });
    await eventually(async () => ((await readAll(client, tenant)).ids.length === 1 ? true : undefined));
    await first.stop();
    const after = busEvent(tenant);
    await js.publish(subjects.events('catalog', after.type), encodeBusEvent(after), { msgID: after.id });
    const all = await eventually(async () => {
      const read = await readAll(client, tenant);
      return read.ids.length === 2 ? read : undefined;
    }, 20_000);
    expect(all.ids).toEqual([before.id, after.id]);
  } finally {
    await client.close();
    await first.stop();
    await second.stop();
  }
});
