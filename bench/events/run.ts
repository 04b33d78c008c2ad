/**
 * Events feed benchmarks (bench/events). Results: bench/results/events.json and a summary on stdout.
 *
 *   page  feed page latency (limit 500, with and without `types`) on 1,000,000 events across 10
 *         tenants inserted with generate_series: GET /api/v1/catalog/events through the gateway,
 *         and the events service's `listEvents` over NATS; EXPLAIN ANALYZE of the page queries in
 *         bench/results/events-explain.txt
 *   e2e   (a) entity writes through the gateway for BENCH_E2E_SECONDS (60) with 32 concurrent
 *         writers → visible in the feed, once with one entity per request (POST entities), once
 *         with BENCH_E2E_BATCH_SIZE (20) per request (POST entities/batch), then batches at a fixed
 *         BENCH_E2E_SUSTAINED_RATE (2,500 events/s, open loop); (b) visibility latency at 500
 *         single writes/s (open loop, 30 s)
 *
 * `node --conditions=source --import tsx bench/events/run.ts [page|e2e]` with DATABASE_URL and
 * NATS_URL set (or `npm run bench -- events`), after `npm run build`: the services run from their
 * built output as child processes.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { callRpc, JsonText, subjectsFor, type NatsConnection, type Subjects } from '@catalog/platform';
import { feedCursors, feedPageStatement } from '@catalog/events';
import { machine, repoRoot, startService, type BenchProcess } from '../support/processes.js';
import { apiClient, testBus, testCallContext } from '@catalog/testing';
import { benchEnv, createBenchDatabase, requestJson, requestText } from '../support/setup.js';

if (!process.env.DATABASE_URL || !process.env.NATS_URL)
  throw new Error('DATABASE_URL and NATS_URL are required (run via npm run bench -- events)');
const CURSOR_SECRET = `bench-${randomBytes(16).toString('hex')}`;
const resultsDir = join(repoRoot, 'bench', 'results');

function percentiles(values: number[]): { n: number; p50: number; p90: number; p99: number; max: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
    mean: round(sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length)),
  };
}

/** `listEvents` over NATS as the gateway calls it; resolves with the page as received, unparsed. */
function feedFetcher(nc: NatsConnection, subjects: Subjects) {
  return async (tenantId: string, query: Record<string, unknown>): Promise<() => any> => {
    const reply = await callRpc(
      { nc, subjects, callContext: testCallContext(), timeoutMs: 30_000, passJsonThrough: true },
      'events',
      'listEvents',
      { params: {}, query, body: null },
      {
        tenantId,
        keyId: null,
        sourceSystem: 'bench',
        requestId: 'bench',
      },
    );
    if (!reply.ok) throw new Error(`listEvents: ${JSON.stringify(reply.error)}`);
    const body = reply.body;
    return () => (body instanceof JsonText ? body.parse() : body);
  };
}

/** `listEvents` over NATS, the page parsed. */
function feedCaller(nc: NatsConnection, subjects: Subjects) {
  const fetchPage = feedFetcher(nc, subjects);
  return async (tenantId: string, query: Record<string, unknown>): Promise<any> => (await fetchPage(tenantId, query))();
}

// ---------------------------------------------------------------------------------------------
// (c) page latency on a million events

const TOTAL = Number(process.env.BENCH_FEED_ROWS ?? 1_000_000);
const TENANTS = 10;
const PER_TX = 50;

/** Keys of one tenant used in turn, so the feed's 60 requests per minute per key never binds. */
interface TenantKeys {
  tenantId: string;
  next(): string;
}

async function createTenants(base: string, adminToken: string, keysPerTenant: number): Promise<TenantKeys[]> {
  const api = apiClient(base, adminToken);
  const tenants: TenantKeys[] = [];
  for (let t = 0; t < TENANTS; t += 1) {
    const orgId = await api.organization({ name: `Station ${t}` });
    const keys: string[] = [];
    for (let k = 0; k < keysPerTenant; k += 1) keys.push((await api.apiKey(orgId, { name: `reader ${k}` })).key);
    let i = 0;
    tenants.push({ tenantId: orgId, next: () => keys[(i += 1) % keys.length]! });
  }
  return tenants;
}

async function pageBench(): Promise<Record<string, unknown>> {
  const database = await createBenchDatabase('events_page');
  const { env, adminToken, natsPrefix: prefix } = await benchEnv(database, { FEED_CURSOR_SECRET: CURSOR_SECRET, DB_POOL_SIZE: '10' });
  const owner = new pg.Client({ connectionString: database.url });
  const processes: BenchProcess[] = [];
  let nc: NatsConnection | null = null;
  try {
    processes.push(await startService('events', env, 18384));
    processes.push(await startService('gateway', env, 18380));
    const base = 'http://127.0.0.1:18380';
    const REQUESTS = Number(process.env.BENCH_PAGE_REQUESTS ?? 1000);
    // 5 scenarios x (warm-up + requests) x 2 paths per minute-ish: enough keys to stay under 60/min each.
    const tenantKeys = await createTenants(base, adminToken, Math.ceil((5 * (REQUESTS + 50)) / TENANTS / 50));
    const tenants = tenantKeys.map((t) => t.tenantId);

    await owner.connect();
    const t0 = Date.now();
    // 95% catalog, 5% library; types: 60% entity.updated, 15% version.created, 10% entity.created,
    // 10% asset.confirmed, 4% version.deleted, 1% entity.deleted. tx_id: 50 events per transaction.
    await owner.query(
      `insert into events.feed (tx_id, id, tenant_id, product, type, occurred_at, resource_kind, resource_id, dmrn,
                                source_system, batch_id, schema_version, data, body)
       select e.*, concat('{"id":"', e.id, '","type":"', e.type, '","occurredAt":"',
                          to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                          '","product":"', e.product, '","resourceKind":"entity","resourceId":"', e.resource_id,
                          '","dmrn":null,"sourceSystem":"public-api:bench","batchId":"', e.batch_id,
                          '","schemaVersion":1,"data":{"changedFields":["title"]}}')
         from (select ((g / ${PER_TX}) + 3)::text::xid8,
                      md5('e' || g)::uuid as id,
                      ($1::uuid[])[1 + (g % ${TENANTS})],
                      case when g % 20 = 7 then 'library' else 'catalog' end as product,
                      case when g % 100 < 60 then 'entity.updated' when g % 100 < 75 then 'version.created'
                           when g % 100 < 85 then 'entity.created' when g % 100 < 95 then 'asset.confirmed'
                           when g % 100 < 99 then 'version.deleted' else 'entity.deleted' end as type,
                      now() - (${TOTAL} - g) * interval '10 ms' as occurred_at,
                      'entity', md5('r' || (g % 50000))::uuid as resource_id, null, 'public-api:bench',
                      md5('b' || (g / ${PER_TX}))::uuid as batch_id, 1, '{"changedFields":["title"]}'::jsonb
                 from generate_series(1, ${TOTAL}) as g) as e`,
      [tenants],
    );
    await owner.query('vacuum analyze events.feed');
    // Write the bulk load's dirty pages out now, not during the measurements.
    await owner.query('checkpoint');
    const loadSeconds = (Date.now() - t0) / 1000;
    const maxTx = Math.floor(TOTAL / PER_TX) + 3;

    nc = await testBus('bench-feed', { user: 'gateway' });
    const fetchFromService = feedFetcher(nc, subjectsFor(prefix));
    const keysOf = new Map(tenantKeys.map((t) => [t.tenantId, t]));
    const fetchFromGateway = async (tenantId: string, query: Record<string, unknown>): Promise<() => any> => {
      const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
      const text = await requestText('GET', `${base}/api/v1/catalog/events?${search}`, {
        authorization: `Bearer ${keysOf.get(tenantId)!.next()}`,
      });
      return () => JSON.parse(text);
    };
    const cursors = feedCursors(CURSOR_SECRET);
    const randomCursor = (tenant: string) =>
      cursors.encode(tenant, {
        tx: String(3 + Math.floor(Math.random() * (maxTx - 3) * 0.95)),
        id: '00000000-0000-0000-0000-000000000000',
      });
    const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

    const scenarios: Array<{ name: string; query: (tenant: string) => Record<string, unknown> }> = [
      { name: 'limit 500, no types, random position', query: (t) => ({ limit: 500, after: randomCursor(t) }) },
      { name: 'limit 500, no types, from the start', query: () => ({ limit: 500 }) },
      { name: 'limit 500, types=entity.updated (60%)', query: (t) => ({ limit: 500, types: 'entity.updated', after: randomCursor(t) }) },
      {
        name: 'limit 500, types=entity.created,version.created (25%)',
        query: (t) => ({ limit: 500, types: 'entity.created,version.created', after: randomCursor(t) }),
      },
      { name: 'limit 500, types=entity.deleted (1%)', query: (t) => ({ limit: 500, types: 'entity.deleted', after: randomCursor(t) }) },
    ];
    const paths = [
      {
        name: 'gateway',
        note: 'GET /api/v1/catalog/events over HTTP (node:http, keep-alive) through the gateway (key check, rate limit, NATS, events service); latency to the last byte of the response, the client parses it afterwards',
        call: fetchFromGateway,
      },
      {
        name: 'service',
        note: 'listEvents over NATS straight to the events service; latency to the whole reply, parsed afterwards',
        call: fetchFromService,
      },
    ];
    const results: Record<string, Record<string, unknown>> = {};
    for (const path of paths) {
      results[path.name] = { note: path.note };
      for (const scenario of scenarios) {
        for (let i = 0; i < 50; i += 1) {
          const tenant = pick(tenants);
          await path.call(tenant, scenario.query(tenant)); // warm-up
        }
        const latencies: number[] = [];
        let returned = 0;
        for (let i = 0; i < REQUESTS; i += 1) {
          const tenant = pick(tenants);
          const start = performance.now();
          const received = await path.call(tenant, scenario.query(tenant));
          latencies.push(performance.now() - start);
          const page = received();
          returned += page.events.length;
        }
        results[path.name]![scenario.name] = { latencyMs: percentiles(latencies), meanEvents: Math.round(returned / REQUESTS) };
        console.log(`[page] ${path.name}: ${scenario.name}: ${JSON.stringify(results[path.name]![scenario.name])}`);
      }
    }

    // EXPLAIN ANALYZE as the service runs it: the app role, one tenant set for row-level security.
    const explain = async (label: string, types: string[] | null): Promise<string> => {
      const tenantId = tenants[3]!;
      const { sql: text, parameters } = feedPageStatement({
        tenantId,
        product: 'catalog',
        limit: 500,
        types,
        after: { tx: midTx, id: zero },
      });
      await owner.query('begin');
      try {
        await owner.query('set local role events_app');
        await owner.query(`select set_config('app.tenant_id', $1, true)`, [tenantId]);
        const { rows } = await owner.query(`explain (analyze, buffers) ${text}`, parameters);
        return `-- ${label}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n`;
      } finally {
        await owner.query('rollback');
      }
    };
    const midTx = String(Math.floor(maxTx / 2));
    const zero = '00000000-0000-0000-0000-000000000000';
    const plans = [
      await explain('no types, mid-feed cursor', null),
      await explain('types=entity.updated, mid-feed cursor', ['entity.updated']),
      await explain('types=entity.created,version.created, mid-feed cursor', ['entity.created', 'version.created']),
      await explain('types=entity.deleted (rare), mid-feed cursor', ['entity.deleted']),
    ].join('\n');
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(join(resultsDir, 'events-explain.txt'), plans);
    return {
      rows: TOTAL,
      tenants: TENANTS,
      loadSeconds,
      requestsPerScenario: REQUESTS,
      sequential: 'one request at a time, random tenant, random cursor position',
      scenarios: results,
      peakRssMiB: Object.fromEntries(processes.map((p) => [p.name, p.peakRssMiB()])),
      target: { p99Ms: 25 },
    };
  } finally {
    await nc?.drain().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await owner.end().catch(() => undefined);
    await database.drop();
  }
}

// ---------------------------------------------------------------------------------------------
// (a) end-to-end throughput and (b) visibility latency

interface Follower {
  seenAt: Map<string, number>;
  /** The position reached so far (null: none yet). */
  cursor(): string | null;
  stop(): Promise<void>;
}

/**
 * Follows a tenant's feed as a client does (cursor, limit 500, polls every 10 ms when caught up),
 * from `from` (a cursor a previous follower reached) or from the start of the feed.
 */
function follow(call: ReturnType<typeof feedCaller>, tenantId: string, from: string | null = null): Follower {
  const seenAt = new Map<string, number>();
  let running = true;
  let cursor: string | null = from;
  const loop = (async () => {
    while (running) {
      const page = await call(tenantId, { limit: 500, ...(cursor ? { after: cursor } : {}) });
      const now = performance.now();
      for (const event of page.events) if (!seenAt.has(event.resourceId)) seenAt.set(event.resourceId, now);
      if (page.nextCursor) cursor = page.nextCursor;
      if (!page.hasMore) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    seenAt,
    cursor: () => cursor,
    async stop() {
      running = false;
      await loop;
    },
  };
}

async function waitAllSeen(follower: Follower, ids: Iterable<string>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const wanted = [...ids];
  while (Date.now() < deadline) {
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

async function e2eBench(): Promise<Record<string, unknown>> {
  const database = await createBenchDatabase('events_e2e');
  const { env, adminToken, natsPrefix: prefix } = await benchEnv(database, { DB_POOL_SIZE: '20', FEED_CURSOR_SECRET: CURSOR_SECRET });
  const processes: BenchProcess[] = [];
  let nc: NatsConnection | null = null;
  try {
    processes.push(await startService('catalog', env, 18281));
    processes.push(await startService('events', env, 18284));
    processes.push(await startService('gateway', env, 18280));
    const base = 'http://127.0.0.1:18280';
    const { orgId, key } = await apiClient(base, adminToken).tenant({ name: 'Bench FM' });
    const auth = { authorization: `Bearer ${key}` };
    nc = await testBus('bench-e2e', { user: 'gateway' });
    const call = feedCaller(nc, subjectsFor(prefix));
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
      await follower.stop();
      followerFrom = follower.cursor();
      let lastSeen = 0;
      for (const id of written.keys()) lastSeen = Math.max(lastSeen, follower.seenAt.get(id) ?? Infinity);
      const visibility = [...written.entries()].map(([id, at]) => (follower.seenAt.get(id) ?? Infinity) - at);
      return { allSeen, lastSeen, visibility };
    };
    const throughputPhase = async (entitiesPerRequest: number, send: () => Promise<Array<{ id: string; respondedAt: number }>>) => {
      // Each phase follows from where the previous one's follower stopped, as a client keeps its cursor.
      const follower = follow(call, orgId, followerFrom);
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
    const throughput = await throughputPhase(1, async () => [await write()]);
    const batchedThroughput = await throughputPhase(batchSize, writeBatch);

    /**
     * Writes at a fixed rate of events (open loop: requests go out on schedule whether or not
     * earlier ones have answered) and measures each event's visibility: from the 201 of its write
     * (after its commit) to the first feed poll that returned it.
     */
    const openLoopPhase = async (eventsPerSecond: number, entitiesPerRequest: number, send: typeof writeBatch, phaseSeconds: number) => {
      // Picks up where the previous follower stopped, as a client that keeps its cursor does: a
      // follower starting from the feed's beginning would first page through every earlier event.
      const follower = follow(call, orgId, followerFrom);
      const respondedAt = new Map<string, number>();
      const pending: Array<Promise<void>> = [];
      const phaseStart = performance.now();
      let issued = 0;
      while (performance.now() < phaseStart + phaseSeconds * 1000) {
        const due = Math.floor((((performance.now() - phaseStart) / 1000) * eventsPerSecond) / entitiesPerRequest);
        for (; issued < due; issued += 1) {
          pending.push(send().then((written) => written.forEach((w) => respondedAt.set(w.id, w.respondedAt))));
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
    const sustained = (await openLoopPhase(sustainedRate, batchSize, writeBatch, seconds)).result;
    console.log(`[e2e] sustained: ${JSON.stringify({ ...sustained, target: { eventsPerSecond: 2000 } })}`);

    // (b) visibility latency at a fixed rate of single writes (open loop, default 500 writes/s).
    const rate = Number(process.env.BENCH_VISIBILITY_RATE ?? 500);
    const rateSeconds = Number(process.env.BENCH_VISIBILITY_SECONDS ?? 30);
    const single = await openLoopPhase(rate, 1, async () => [await write()], rateSeconds);
    const visibility = {
      ...single.result,
      stagesMs: await visibilityStages(database.url, respondedAtEpoch, single.ids),
      note: 'from the 201 of the write (after its commit) to the first feed poll that returned it; the follower polls every 10 ms when caught up',
      target: { p99Ms: 250 },
    };
    console.log(`[e2e] visibility: ${JSON.stringify(visibility)}`);
    return {
      throughput,
      batchedThroughput,
      sustained,
      visibility,
      peakRssMiB: Object.fromEntries(processes.map((p) => [p.name, p.peakRssMiB()])),
    };
  } finally {
    await nc?.drain().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await database.drop();
  }
}

const which = process.argv[2] ?? 'all';
const resultsFile = join(resultsDir, 'events.json');
let previous: Record<string, unknown> = {};
try {
  previous = JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>;
} catch {
  // first run
}
const results: Record<string, unknown> = { ...previous, machine: machine(), at: new Date().toISOString() };
if (which === 'page' || which === 'all') results.page = await pageBench();
if (which === 'e2e' || which === 'all') results.e2e = await e2eBench();
mkdirSync(resultsDir, { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
console.log(`results in ${resultsFile}`);
process.exit(0);
