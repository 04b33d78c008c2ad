/** The end-to-end benchmarks of bench/events/run.ts (see there): writes to feed, visibility latency. */
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { subjectsFor, type NatsConnection } from '@catalog/platform';
import { apiClient, testBus } from '@catalog/testing';
import { memoryLimits, startService, type BenchProcess } from '../support/processes.js';
import { benchEnv, createBenchDatabase, requestJson } from '../support/setup.js';
import { CURSOR_SECRET, feedCaller, percentiles } from './feed.js';

interface Follower {
  seenAt: Map<string, number>;
  /** The position reached so far (null: none yet). */
  cursor(): string | null;
  /** The loop ended on an error (`stop()` rethrows it). */
  failed(): boolean;
  stop(): Promise<void>;
}

/**
 * Follows a tenant's feed as a client does (cursor, limit 500, polls every 10 ms when caught up),
 * from `from` (a cursor a previous follower reached) or from the start of the feed. A failed poll
 * ends the loop; `stop()` rethrows its error (never an unhandled rejection that would take the
 * process down with whatever error comes next, e.g. the bus connection being drained at exit).
 */
function follow(call: ReturnType<typeof feedCaller>, tenantId: string, from: string | null = null): Follower {
  const seenAt = new Map<string, number>();
  let running = true;
  let cursor: string | null = from;
  const loop = (async () => {
    while (running) {
      const page = await call(tenantId, { limit: 500, ...(cursor ? { after: cursor } : {}) });
      const now = performance.now();
      for (const { resourceId } of page.events) if (resourceId !== null && !seenAt.has(resourceId)) seenAt.set(resourceId, now);
      if (page.nextCursor) cursor = page.nextCursor;
      if (!page.hasMore) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  let failure: { error: unknown } | null = null;
  const settled = loop.catch((error: unknown) => {
    failure = { error };
    running = false;
  });
  return {
    seenAt,
    cursor: () => cursor,
    failed: () => failure !== null,
    async stop() {
      running = false;
      await settled;
      if (failure) throw (failure as { error: unknown }).error;
    },
  };
}

async function waitAllSeen(follower: Follower, ids: Iterable<string>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const wanted = [...ids];
  while (Date.now() < deadline && !follower.failed()) {
    if (wanted.every((id) => follower.seenAt.has(id))) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/**
 * Where the visibility time of the given entities went, from the rows the pipeline left behind:
 * the 201 → the relay's mark after its PubAck (`catalog.outbox.published_at`) → the feed insert's
 * transaction start (`events.feed.received_at`). Wall-clock milliseconds; all on one host.
 */
async function visibilityStages(
  databaseUrl: string,
  respondedAtEpoch: Map<string, number>,
  ids: Set<string>,
): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ resource_id: string; published: number; received: number }>(
      `select o.resource_id, extract(epoch from o.published_at) * 1000 as published, extract(epoch from f.received_at) * 1000 as received
         from catalog.outbox o join events.feed f using (id)
        where o.type = 'entity.created'`,
    );
    const toPublished: number[] = [];
    const publishedToStored: number[] = [];
    for (const row of rows) {
      const responded = respondedAtEpoch.get(row.resource_id);
      if (responded === undefined || !ids.has(row.resource_id)) continue;
      toPublished.push(Number(row.published) - responded);
      publishedToStored.push(Number(row.received) - Number(row.published));
    }
    return {
      responseToRelayMarked: percentiles(toPublished),
      relayMarkedToFeedInsert: percentiles(publishedToStored),
      note: 'feed insert can start before the relay marks its row (it marks after the PubAck), so the second stage can be negative',
    };
  } finally {
    await client.end();
  }
}

export async function e2eBench(): Promise<Record<string, unknown>> {
  const database = await createBenchDatabase('events_e2e');
  const { env, adminToken, natsPrefix: prefix } = await benchEnv(database, { DB_POOL_SIZE: '20', FEED_CURSOR_SECRET: CURSOR_SECRET });
  const processes: BenchProcess[] = [];
  let nc: NatsConnection | null = null;
  // Followers still polling when a phase fails: stopped before the bus connection is drained.
  const followers = new Set<Follower>();
  try {
    processes.push(await startService('catalog', env, 18281));
    processes.push(await startService('events', env, 18284));
    processes.push(await startService('gateway', env, 18280));
    const base = 'http://127.0.0.1:18280';
    const { orgId, key } = await apiClient(base, adminToken).tenant({ name: 'Bench FM' });
    const auth = { authorization: `Bearer ${key}` };
    nc = await testBus('bench-e2e', { user: 'gateway' });
    const call = feedCaller(nc, subjectsFor(prefix));
    const startFollower = (from: string | null): Follower => {
      const follower = follow(call, orgId, from);
      followers.add(follower);
      return follower;
    };
    let n = 0;
    const respondedAtEpoch = new Map<string, number>();
    const write = async (): Promise<{ id: string; respondedAt: number }> => {
      const entity = await requestJson('POST', `${base}/api/v1/catalog/entities`, auth, { type: 'song', title: `Track ${(n += 1)}` });
      respondedAtEpoch.set(entity.id, Date.now());
      return { id: entity.id, respondedAt: performance.now() };
    };
    const batchSize = Number(process.env.BENCH_E2E_BATCH_SIZE ?? 20);
    const writeBatch = async (): Promise<Array<{ id: string; respondedAt: number }>> => {
      const entities = Array.from({ length: batchSize }, () => ({ type: 'song', title: `Track ${(n += 1)}` }));
      const batch = await requestJson('POST', `${base}/api/v1/catalog/entities/batch`, auth, { entities });
      const respondedAt = performance.now();
      return batch.entities.map((entity: { id: string }) => ({ id: entity.id, respondedAt }));
    };
    for (let i = 0; i < 200; i += 1) await write(); // warm-up
    for (let i = 0; i < 20; i += 1) await writeBatch();

    // (a) throughput: 32 closed-loop writers for the duration, each sending one entity per request,
    // then (a, batched) `batchSize` entities per request.
    const seconds = Number(process.env.BENCH_E2E_SECONDS ?? 60);
    let followerFrom: string | null = null;
    /**
     * Ends a phase: waits until its follower has seen every written event (at most 120 s), stops
     * it and keeps its cursor for the next phase. Returns each event's visibility (from the 201 of
     * its write to the poll that returned it) and when the last one was seen.
     */
    const endPhase = async (follower: Follower, written: Map<string, number>) => {
      const allSeen = await waitAllSeen(follower, written.keys(), 120_000);
      followers.delete(follower);
      await follower.stop();
      followerFrom = follower.cursor();
      let lastSeen = 0;
      for (const id of written.keys()) lastSeen = Math.max(lastSeen, follower.seenAt.get(id) ?? Infinity);
      const visibility = [...written.entries()].map(([id, at]) => (follower.seenAt.get(id) ?? Infinity) - at);
      return { allSeen, lastSeen, visibility };
    };
    const throughputPhase = async (entitiesPerRequest: number, send: () => Promise<Array<{ id: string; respondedAt: number }>>) => {
      // Each phase follows from where the previous one's follower stopped, as a client keeps its cursor.
      const follower = startFollower(followerFrom);
      const written = new Map<string, number>();
      let requests = 0;
      const start = performance.now();
      const end = start + seconds * 1000;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (performance.now() < end) {
            for (const w of await send()) written.set(w.id, w.respondedAt);
            requests += 1;
          }
        }),
      );
      const writesDone = performance.now();
      const { allSeen, lastSeen, visibility } = await endPhase(follower, written);
      const result = {
        seconds,
        writers: 32,
        entitiesPerRequest,
        events: written.size,
        allSeen,
        httpRequestsPerSecond: Math.round(requests / ((writesDone - start) / 1000)),
        httpWritesPerSecond: Math.round(written.size / ((writesDone - start) / 1000)),
        visibleEventsPerSecond: Math.round(written.size / ((lastSeen - start) / 1000)),
        visibilityUnderSaturationMs: percentiles(visibility),
        target: { eventsPerSecond: 2000 },
      };
      console.log(`[e2e] throughput, ${entitiesPerRequest} per request: ${JSON.stringify(result)}`);
      return result;
    };
    // BENCH_E2E_PHASES (a comma list of throughput, batched, sustained, visibility; all by default) runs only some.
    const phases = new Set((process.env.BENCH_E2E_PHASES ?? 'throughput,batched,sustained,visibility').split(','));
    const throughput = phases.has('throughput') ? await throughputPhase(1, async () => [await write()]) : null;
    const batchedThroughput = phases.has('batched') ? await throughputPhase(batchSize, writeBatch) : null;

    /**
     * Writes at a fixed rate of events (open loop: requests go out on schedule whether or not
     * earlier ones have answered) and measures each event's visibility: from the 201 of its write
     * (after its commit) to the first feed poll that returned it.
     */
    const openLoopPhase = async (eventsPerSecond: number, entitiesPerRequest: number, send: typeof writeBatch, phaseSeconds: number) => {
      // Picks up where the previous follower stopped, as a client that keeps its cursor does: a
      // follower starting from the feed's beginning would first page through every earlier event.
      const follower = startFollower(followerFrom);
      const respondedAt = new Map<string, number>();
      const pending: Array<Promise<void>> = [];
      // A write that fails is counted and reported with the phase (each pending write handles its
      // own failure: an unhandled one would end the process mid-phase).
      const failures: string[] = [];
      const phaseStart = performance.now();
      let issued = 0;
      while (performance.now() < phaseStart + phaseSeconds * 1000) {
        const due = Math.floor((((performance.now() - phaseStart) / 1000) * eventsPerSecond) / entitiesPerRequest);
        for (; issued < due; issued += 1) {
          pending.push(
            send().then(
              (written) => written.forEach((w) => respondedAt.set(w.id, w.respondedAt)),
              (error: unknown) => void failures.push(error instanceof Error ? error.message : String(error)),
            ),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await Promise.all(pending);
      const achievedRate = Math.round(respondedAt.size / ((performance.now() - phaseStart) / 1000));
      const { allSeen, lastSeen, visibility } = await endPhase(follower, respondedAt);
      return {
        result: {
          targetRate: eventsPerSecond,
          entitiesPerRequest,
          achievedRate,
          seconds: phaseSeconds,
          events: respondedAt.size,
          failedRequests: failures.length,
          ...(failures.length > 0 ? { firstFailure: failures[0] } : {}),
          allSeen,
          visibleEventsPerSecond: Math.round(respondedAt.size / ((lastSeen - phaseStart) / 1000)),
          latencyMs: percentiles(visibility),
        },
        ids: new Set(respondedAt.keys()),
      };
    };

    // (a, sustained) a fixed rate of events above the target, in batches, for the duration: the
    // feed keeps up when visibility stays bounded (the closed loops above saturate on purpose).
    const sustainedRate = Number(process.env.BENCH_E2E_SUSTAINED_RATE ?? 2500);
    const sustained = phases.has('sustained') ? (await openLoopPhase(sustainedRate, batchSize, writeBatch, seconds)).result : null;
    if (sustained) console.log(`[e2e] sustained: ${JSON.stringify({ ...sustained, target: { eventsPerSecond: 2000, p99Ms: 50 } })}`);

    // (b) visibility latency at a fixed rate of single writes (open loop, default 500 writes/s).
    const rate = Number(process.env.BENCH_VISIBILITY_RATE ?? 500);
    const rateSeconds = Number(process.env.BENCH_VISIBILITY_SECONDS ?? 30);
    const single = phases.has('visibility') ? await openLoopPhase(rate, 1, async () => [await write()], rateSeconds) : null;
    const visibility = single && {
      ...single.result,
      stagesMs: await visibilityStages(database.url, respondedAtEpoch, single.ids),
      note: 'from the 201 of the write (after its commit) to the first feed poll that returned it; the follower polls every 10 ms when caught up',
      target: { p99Ms: 250 },
    };
    if (visibility) console.log(`[e2e] visibility: ${JSON.stringify(visibility)}`);
    // JetStream's share of the sizing (docs/operations.md): what the events stream holds after the run.
    // (as the bus's admin: the gateway's user may not call the JetStream API)
    const admin = await testBus('bench-e2e-stream-info');
    const { state, config } = await (
      await jetstreamManager(admin)
    ).streams
      .info(subjectsFor(prefix).eventsStream)
      .finally(() => admin.drain());
    const jetstream = {
      messages: state.messages,
      bytes: state.bytes,
      bytesPerMessage: Math.round(state.bytes / Math.max(1, state.messages)),
      maxAgeDays: config.max_age / 1e9 / 86_400,
    };
    console.log(`[e2e] events stream: ${JSON.stringify(jetstream)}`);
    return {
      jetstream,
      throughput,
      batchedThroughput,
      sustained,
      visibility,
      peakRssMiB: Object.fromEntries(processes.map((p) => [p.name, p.peakRssMiB()])),
      memoryLimits: memoryLimits(processes),
    };
  } finally {
    for (const follower of followers)
      await follower.stop().catch((error: unknown) => console.error(`[e2e] the feed follower failed too: ${String(error)}`));
    await nc?.drain().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await database.drop();
  }
}
