import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '@catalog/platform';
import { apiClient, eventually } from '@catalog/testing';
import { backlogObserver, type Backlog, type BacklogObserver } from './backlog.js';
import { startOwnInfrastructure, type OwnInfrastructure } from './own-infrastructure.js';
import { startProcessSystem, type ProcessSystem } from './process-system.js';
import { listEveryEntity, readWholeFeed, repeated } from './read-back.js';
import { startWriters, type Writers } from './writers.js';

/**
 * The fault test (decision 0061). Every service runs as a process of its own (two
 * catalog and two events replicas) against a Postgres and a nats-server of this test's own. While
 * writers create entities through the gateway, the events replica that writes the feed and the
 * catalog replica that publishes the outbox are killed with SIGKILL (and restarted, as a cluster
 * would), nats-server is killed with SIGKILL and started again, and Postgres is restarted. Each
 * fault strikes while events are on their way, which the test reads from the database first.
 * Afterwards every entity the tenant has is in its feed once as entity.created, no event id
 * repeats across the pages, and every creation that answered 201 is stored.
 */
const ADMIN_TOKEN = 'chaos-test-admin-token-0123456789';
const READY_MS = 120_000;

let infra: OwnInfrastructure | undefined;
let system: ProcessSystem | undefined;
let blobDir: string;

beforeAll(async () => {
  infra = await startOwnInfrastructure();
  blobDir = mkdtempSync(join(tmpdir(), 'catalog-chaos-blobs-'));
  system = await startProcessSystem({
    shared: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? tmpdir(),
      ...infra.serviceEnvironment,
      NATS_URL: infra.nats.url,
      HTTP_HOST: '127.0.0.1',
      ADMIN_TOKEN,
      BLOB_DIR: blobDir,
      BLOB_SIGNING_SECRET: 'chaos-test-blob-signing-secret-0123456789abcdef',
      FEED_CURSOR_SECRET: 'chaos-test-feed-cursor-secret-0123456789',
      OTEL_SDK_DISABLED: 'true',
      LOG_LEVEL: 'warn',
      RPC_TIMEOUT_MS: '3000',
      DB_POOL_SIZE: '4',
    },
    // The lease lines (who publishes the outbox, who writes the feed) are INFO.
    own: { catalog: { LOG_LEVEL: 'info' }, events: { LOG_LEVEL: 'info' } },
  });
  const running = system;
  await Promise.all(running.instances.map((instance) => running.untilReady(instance.name, READY_MS)));
}, READY_MS + 60_000);

afterAll(async () => {
  await system?.stop();
  await infra?.remove();
  rmSync(blobDir, { recursive: true, force: true });
}, 60_000);

/** Where each fault struck and what was on its way at that moment. */
const faults: Array<{ fault: string; backlog: Backlog; inFlight: boolean }> = [];

const eventsNotInTheFeed = (b: Backlog) => b.recorded > b.stored;
const eventsNotPublished = (b: Backlog) => b.unpublished > 0;

async function strike(backlog: BacklogObserver, fault: string, inFlight: (b: Backlog) => boolean, act: () => Promise<void>): Promise<void> {
  const reading = await backlog.untilInFlight(fault, inFlight, 30_000);
  await act();
  faults.push({ fault, backlog: reading, inFlight: inFlight(reading) });
}

/** Kills the replica holding `lease` with SIGKILL while events are on their way; waits for it to be back. */
async function killLeaseHolder(
  sys: ProcessSystem,
  backlog: BacklogObserver,
  lease: string,
  inFlight: (b: Backlog) => boolean,
): Promise<void> {
  const holder = await eventually(async () => sys.leaseHolder(lease), 30_000);
  const pid = sys.supervisor.pid(holder);
  await strike(backlog, `kill -9 ${holder} (${lease})`, inFlight, async () => sys.supervisor.kill(holder, 'SIGKILL'));
  await eventually(async () => (sys.supervisor.pid(holder) !== undefined && sys.supervisor.pid(holder) !== pid ? true : undefined), 30_000);
  await sys.untilReady(holder, READY_MS);
}

async function injectFaults(sys: ProcessSystem, own: OwnInfrastructure, backlog: BacklogObserver, writers: Writers): Promise<void> {
  await writers.untilCreated(30, 30_000);
  await killLeaseHolder(sys, backlog, 'events-feed-writer', eventsNotInTheFeed);
  await writers.untilCreated(30, 60_000);
  await killLeaseHolder(sys, backlog, 'outbox-relay:catalog', eventsNotPublished);
  await writers.untilCreated(30, 60_000);
  const natsPid = own.nats.pid();
  await strike(backlog, 'kill -9 nats-server', eventsNotInTheFeed, () => own.nats.killHard());
  await sleep(1_000);
  await own.nats.start();
  expect(own.nats.pid()).not.toBe(natsPid);
  await writers.untilCreated(30, 60_000);
  await strike(backlog, 'restart Postgres', eventsNotInTheFeed, () => own.postgres.restart());
  await writers.untilCreated(30, 60_000);
}

test('entities written through kill -9 of an events and a catalog replica and of nats-server, and a Postgres restart, are each stored and in the feed exactly once', async () => {
  const sys = system!;
  const own = infra!;
  const api = apiClient(sys.gatewayUrl, ADMIN_TOKEN);
  const tenant = await api.tenant({ name: 'Chaos Radio' });
  const backlog = backlogObserver(own.postgres.url, tenant.orgId);
  const writers = startWriters(sys.gatewayUrl, tenant.key, { writers: 3, pauseMs: 40 });
  await sys.explained(() => injectFaults(sys, own, backlog, writers)).finally(() => writers.stop());
  const settled = await backlog.untilSettled(60_000).finally(() => backlog.close());

  // Every fault struck while events were on their way (read from the database just before).
  expect(faults.map(({ fault, inFlight }) => [fault, inFlight])).toEqual([
    [expect.stringMatching(/^kill -9 events-[12] \(events-feed-writer\)$/), true],
    [expect.stringMatching(/^kill -9 catalog-[12] \(outbox-relay:catalog\)$/), true],
    ['kill -9 nats-server', true],
    ['restart Postgres', true],
  ]);

  const entities = await listEveryEntity(api, tenant.key);
  const pages = await readWholeFeed(api, tenant.key);
  const events = pages.flat();
  expect(repeated(events.map((event) => event.id))).toEqual([]);
  const created = events.filter((event) => event.type === 'entity.created').map((event) => event.resourceId!);
  expect(repeated(created)).toEqual([]);
  expect(new Set(created)).toEqual(new Set(entities.keys()));
  expect(events.length).toBe(settled.recorded);

  const lost = [...writers.created].filter(([id, title]) => entities.get(id) !== title);
  expect(lost).toEqual([]);
  expect(writers.created.size).toBeGreaterThanOrEqual(150);
  // A fault is never the client's error nor a fault of the code: while Postgres restarts the
  // answer is 503 service_unavailable (try again), never 500 internal_error.
  expect([...writers.failures.keys()].filter((answer) => answer === '500')).toEqual([]);
  // Only the two replicas this test killed ever exited (a failure shows what each exit wrote last).
  const exits = sys.exits.map((exit) => [exit.name.replace(/-\d$/, ''), exit.signal]);
  await sys.explained(() =>
    expect(exits).toEqual([
      ['events', 'SIGKILL'],
      ['catalog', 'SIGKILL'],
    ]),
  );
}, 300_000);
