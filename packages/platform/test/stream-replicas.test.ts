import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  commonConfig,
  ConfigError,
  connectBus,
  ensureDeadLetterStream,
  ensureEventsStream,
  readConfig,
  subjectsFor,
  type NatsConnection,
} from '@catalog/platform';
import { capturingLogger, eventually, testLogger, uniqueNatsPrefix } from '@catalog/testing';
import { startNatsCluster, type NatsCluster } from './nats-cluster.js';

/**
 * `JETSTREAM_REPLICAS` (decision 0131): the streams the services create get that many replicas,
 * and an existing stream with another count is brought to it on start, keeping its messages and
 * other settings. Against a real three-server JetStream cluster and a single server.
 */
const BASE_ENV = { DATABASE_URL: 'postgres://app:pw@127.0.0.1:5432/catalog', CALL_CONTEXT_SECRET: 'x'.repeat(32) };

function replicasOf(env: Record<string, string>): number {
  return readConfig(commonConfig('probe', 0), { ...BASE_ENV, ...env }).jetstreamReplicas;
}

describe('JETSTREAM_REPLICAS', () => {
  test('is read by every service: 1 by default, 1 to 5', () => {
    expect(replicasOf({})).toBe(1);
    expect(replicasOf({ JETSTREAM_REPLICAS: '3' })).toBe(3);
    for (const wrong of ['0', '6', 'three']) {
      expect(() => replicasOf({ JETSTREAM_REPLICAS: wrong })).toThrow(ConfigError);
      expect(() => replicasOf({ JETSTREAM_REPLICAS: wrong })).toThrow(/JETSTREAM_REPLICAS/);
    }
  });
});

describe('streams on a three-server JetStream cluster', () => {
  let cluster: NatsCluster;
  const connections: NatsConnection[] = [];
  const capturing = capturingLogger();

  async function connect(streamReplicas: number, logger = testLogger()): Promise<NatsConnection> {
    const nc = await connectBus({ url: cluster.url, name: 'replicas-test', logger, streamReplicas });
    connections.push(nc);
    return nc;
  }

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    const nc = await connect(1);
    // The cluster answers JetStream requests once it elected a meta leader, and places three
    // replicas once every server is a current peer (later than the leader on a busy machine).
    await eventually(async () => (await jetstreamManager(nc)).getAccountInfo(), 60_000, 200);
    await eventually(
      async () => {
        const jsm = await jetstreamManager(nc);
        await jsm.streams.add({ name: 'PLACEMENT_PROBE', subjects: ['placement.probe'], num_replicas: 3 });
        await jsm.streams.delete('PLACEMENT_PROBE');
        return true;
      },
      60_000,
      500,
    );
  }, 150_000);

  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await cluster?.stop();
  });

  test('creates the events and dead-letter streams with three replicas', async () => {
    const subjects = subjectsFor(uniqueNatsPrefix());
    const nc = await connect(3);
    const events = await ensureEventsStream(nc, subjects);
    const deadLetters = await ensureDeadLetterStream(nc, subjects);
    expect(events.config.num_replicas).toBe(3);
    expect(deadLetters.config.num_replicas).toBe(3);
    const jsm = await jetstreamManager(nc);
    const info = await eventually(async () => {
      const current = await jsm.streams.info(subjects.eventsStream);
      return current.cluster?.replicas?.length === 2 ? current : undefined;
    }, 20_000);
    expect(info.cluster?.leader).toBeDefined();
  }, 60_000);

  test('brings an existing one-replica stream to three on start, keeping its messages and settings, and says so', async () => {
    const subjects = subjectsFor(uniqueNatsPrefix());
    const before = await ensureEventsStream(await connect(1), subjects);
    expect(before.config.num_replicas).toBe(1);
    const nc = await connect(3, capturing.logger);
    await jetstream(nc).publish(subjects.events('catalog', 'entity.created'), new TextEncoder().encode('{}'));

    const after = await ensureEventsStream(nc, subjects);

    expect(after.config.num_replicas).toBe(3);
    expect(after.state.messages).toBe(1);
    expect(after.config).toMatchObject({ allow_direct: true, storage: before.config.storage, max_age: before.config.max_age });
    expect(capturing.lines()).toContainEqual(
      expect.objectContaining({
        stream: subjects.eventsStream,
        from: 1,
        to: 3,
        msg: 'changing the replicas of a stream to JETSTREAM_REPLICAS',
      }),
    );
    // Started again with the same setting: nothing to change.
    await ensureEventsStream(nc, subjects);
    expect(capturing.lines()).toHaveLength(1);
  }, 60_000);
});

describe('streams on a single nats-server', () => {
  let server: NatsCluster;
  let nc: NatsConnection | undefined;

  beforeAll(async () => {
    server = await startNatsCluster(1);
  }, 30_000);

  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  test('refuses more than one replica with an error that names the setting', async () => {
    nc = await connectBus({ url: server.url, name: 'replicas-test', logger: testLogger(), streamReplicas: 3 });
    const subjects = subjectsFor(uniqueNatsPrefix());
    await expect(ensureEventsStream(nc, subjects)).rejects.toThrow(
      /JETSTREAM_REPLICAS=3: NATS cannot keep stream .*_EVENTS with 3 replicas/,
    );
  }, 30_000);
});
