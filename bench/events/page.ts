/** The page benchmark of bench/events/run.ts (see there): feed page latency on a million events. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { EventsPage } from '@catalog/contracts';
import { subjectsFor, type NatsConnection } from '@catalog/platform';
import { feedCursors, feedPageStatement } from '@catalog/events';
import { testBus } from '@catalog/testing';
import { memoryLimits, processCpuMs, programIo, startService, type BenchProcess } from '../support/processes.js';
import { benchEnv, createBenchDatabase, requestText } from '../support/setup.js';
import { clientCollections, type Window } from '../support/client-gc.js';
import { createTenants, CURSOR_SECRET, feedFetcher, percentiles, resultsDir, type ReceivedPage } from './feed.js';

/**
 * The feed's size: BENCH_FEED_ROWS events (1,000,000) in BENCH_FEED_TENANTS tenants (10), of which
 * the first holds BENCH_FEED_LARGEST_ROWS (0: all the same size); a station group's is 10,000,000
 * in 10,000 with 2,000,000 in one. Ten of the tenants are organisations with API keys, the ones
 * measured (with a largest tenant: it and nine others); the rest only have rows.
 */
function feedSize(): { total: number; tenants: number; largest: number; measured: number } {
  const total = Number(process.env.BENCH_FEED_ROWS ?? 1_000_000);
  const tenants = Number(process.env.BENCH_FEED_TENANTS ?? 10);
  const largest = Number(process.env.BENCH_FEED_LARGEST_ROWS ?? 0);
  if (
    !Number.isInteger(total) ||
    total < 1000 ||
    !Number.isInteger(tenants) ||
    tenants < 2 ||
    !Number.isInteger(largest) ||
    largest >= total
  )
    throw new Error('BENCH_FEED_ROWS ≥ 1000, BENCH_FEED_TENANTS ≥ 2 and BENCH_FEED_LARGEST_ROWS below the rows are required');
  return { total, tenants, largest, measured: Math.min(10, tenants) };
}

const PER_TX = 50;
/**
 * Requests through the gateway, every tenant class and scenario in turn, before any scenario is
 * measured (BENCH_PAGE_WARMUP): the services' compiled code and heaps settle first, as in a
 * service that has been running (decision 0179). Their latencies are reported apart.
 */
const WARMUP = Number(process.env.BENCH_PAGE_WARMUP ?? 2000);
/** Rows inserted per statement: the bulk load commits in steps, not in one 10-million-row transaction. */
const LOAD_STEP = 1_000_000;

/**
 * Inserts events numbered `from`..`to` with set-based SQL, as the feed writer stores them (body =
 * the event's JSON). Tenant of event g: the largest tenant for `largestPermille` of every thousand,
 * otherwise tenant k = g mod (the others): `$1[k+1]` for the measured ones, a made-up id for the rest.
 * 95% catalog, 5% library; types: 60% entity.updated, 15% version.created, 10% entity.created, 10%
 * asset.confirmed, 4% version.deleted, 1% entity.deleted. tx_id: 50 events per transaction.
 */
async function loadEvents(
  owner: pg.Client,
  tenantIds: string[],
  size: ReturnType<typeof feedSize>,
  from: number,
  to: number,
): Promise<void> {
  const largestPermille = Math.round((1000 * size.largest) / size.total);
  const tenantOf =
    largestPermille > 0 ? `case when g % 1000 < ${largestPermille} then 0 else 1 + g % ${size.tenants - 1} end` : `g % ${size.tenants}`;
  await owner.query(
    `insert into events.feed (tx_id, id, tenant_id, product, type, occurred_at, resource_kind, resource_id, dmrn,
                              source_system, batch_id, schema_version, data, body)
     select e.tx_id, e.id, case when e.k < ${size.measured} then ($1::uuid[])[e.k + 1] else md5('t' || e.k)::uuid end,
            e.product, e.type, e.occurred_at, e.resource_kind, e.resource_id, e.dmrn, e.source_system, e.batch_id,
            e.schema_version, e.data,
            concat('{"id":"', e.id, '","type":"', e.type, '","occurredAt":"',
                   to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                   '","product":"', e.product, '","resourceKind":"entity","resourceId":"', e.resource_id,
                   '","dmrn":null,"sourceSystem":"public-api:bench","batchId":"', e.batch_id,
                   '","schemaVersion":1,"data":{"changedFields":["title"]}}')
       from (select ((g / ${PER_TX}) + 3)::text::xid8 as tx_id,
                    md5('e' || g)::uuid as id,
                    ${tenantOf} as k,
                    case when g % 20 = 7 then 'library' else 'catalog' end as product,
                    case when g % 100 < 60 then 'entity.updated' when g % 100 < 75 then 'version.created'
                         when g % 100 < 85 then 'entity.created' when g % 100 < 95 then 'asset.confirmed'
                         when g % 100 < 99 then 'version.deleted' else 'entity.deleted' end as type,
                    now() - (${size.total} - g) * interval '10 ms' as occurred_at,
                    'entity' as resource_kind, md5('r' || (g % 50000))::uuid as resource_id, null as dmrn,
                    'public-api:bench' as source_system, md5('b' || (g / ${PER_TX}))::uuid as batch_id,
                    1 as schema_version, '{"changedFields":["title"]}'::jsonb as data
               from generate_series(${from}, ${to}) as g) as e`,
    [tenantIds],
  );
}

/** Postgres's size and I/O counters, for the sizing table of docs/operations.md. */
interface DatabaseFootprint {
  feedTableMiB: number;
  feedTotalMiB: number;
  blksRead: number;
  blksHit: number;
  /** The cluster's WAL flushes so far (pg_stat_wal). */
  walSyncs: number;
}

async function databaseFootprint(owner: pg.Client): Promise<DatabaseFootprint> {
  const { rows } = await owner.query<{ table_bytes: string; total_bytes: string; blks_read: string; blks_hit: string; wal_syncs: string }>(
    `select pg_table_size('events.feed') as table_bytes, pg_total_relation_size('events.feed') as total_bytes,
            blks_read, blks_hit, (select wal_sync from pg_stat_wal) as wal_syncs
       from pg_stat_database where datname = current_database()`,
  );
  const row = rows[0]!;
  return {
    feedTableMiB: Math.round(Number(row.table_bytes) / 2 ** 20),
    feedTotalMiB: Math.round(Number(row.total_bytes) / 2 ** 20),
    blksRead: Number(row.blks_read),
    blksHit: Number(row.blks_hit),
    walSyncs: Number(row.wal_syncs),
  };
}

/**
 * Drops the feed's indexes (its primary key too) so that the bulk load writes the heap alone; the
 * function returned creates them again as they were (sorted builds, as after a restore: the indexes
 * come out denser than ones grown row by row, the heap is the same).
 */
async function dropFeedIndexes(owner: pg.Client): Promise<() => Promise<void>> {
  const { rows } = await owner.query<{ name: string; definition: string; constraint_definition: string | null }>(
    `select c.relname as name, pg_get_indexdef(i.indexrelid) as definition,
            (select pg_get_constraintdef(k.oid) from pg_constraint k where k.conindid = i.indexrelid) as constraint_definition
       from pg_index i join pg_class c on c.oid = i.indexrelid
      where i.indrelid = 'events.feed'::regclass`,
  );
  for (const row of rows) {
    if (row.constraint_definition) await owner.query(`alter table events.feed drop constraint ${row.name}`);
    else await owner.query(`drop index events.${row.name}`);
  }
  return async () => {
    await owner.query(`set maintenance_work_mem = '256MB'`);
    for (const row of rows) {
      if (row.constraint_definition) await owner.query(`alter table events.feed add constraint ${row.name} ${row.constraint_definition}`);
      else await owner.query(row.definition);
    }
  };
}

/**
 * Moves the cluster's transaction ids past `maxTx`, the highest made-up `tx_id` the load writes: a
 * page shows only rows of transactions below every running one (`pg_snapshot_xmin`), and a fresh
 * cluster is a few thousand transactions old, so most loaded rows would stay unseen and the pages
 * measured would be nearly empty (a run on a fresh cluster returned 4 events a page, not 500). Each
 * subtransaction that writes takes an id of its own; a few hundred thousand take a second.
 */
async function passTransactionIds(owner: pg.Client, maxTx: number): Promise<void> {
  const { rows } = await owner.query<{ next: string }>('select pg_current_xact_id()::text as next');
  const missing = maxTx + 1 - Number(rows[0]!.next);
  if (missing > 0) {
    await owner.query('create temporary table transaction_ids_passed (n integer)');
    await owner.query(`do $$ begin for n in 1..${missing} loop
                         begin insert into transaction_ids_passed values (n); exception when others then null; end;
                       end loop; end $$`);
    await owner.query('drop table transaction_ids_passed');
  }
  const { rows: after } = await owner.query<{ xmin: string }>('select pg_snapshot_xmin(pg_current_snapshot())::text as xmin');
  if (Number(after[0]!.xmin) <= maxTx) throw new Error(`transaction ids stop at ${after[0]!.xmin}, below the load's ${maxTx}`);
}

function ioMiB(before: ReturnType<typeof programIo>, after: ReturnType<typeof programIo>): { read: number; written: number } {
  return {
    read: Math.round((after.readBytes - before.readBytes) / 2 ** 20),
    written: Math.round((after.writeBytes - before.writeBytes) / 2 ** 20),
  };
}

export async function pageBench(): Promise<Record<string, unknown>> {
  const size = feedSize();
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
    // 5 scenarios x (warm-up + requests) per tenant class, and the class's share of the first
    // warm-up; a key admits 60 a minute: the largest tenant takes all its class's requests, the
    // others share theirs (picked at random, so unevenly: one key more each).
    const perClass = 5 * (REQUESTS + 50) + Math.ceil(WARMUP / (size.largest > 0 ? 2 : 1));
    const tenantKeys = await createTenants(
      base,
      adminToken,
      size.measured,
      (t) =>
        1 + Math.ceil(size.largest > 0 ? (t === 0 ? perClass : perClass / (size.measured - 1)) / 50 : (2 * perClass) / size.measured / 50),
    );
    const tenants = tenantKeys.map((t) => t.tenantId);

    await owner.connect();
    await passTransactionIds(owner, Math.floor(size.total / PER_TX) + 3);
    const ioBeforeLoad = programIo('postgres');
    const t0 = Date.now();
    const rebuild = await dropFeedIndexes(owner);
    for (let from = 1; from <= size.total; from += LOAD_STEP) {
      await loadEvents(owner, tenants, size, from, Math.min(size.total, from + LOAD_STEP - 1));
      console.log(
        `[page] loaded ${Math.min(size.total, from + LOAD_STEP - 1)} of ${size.total} events (${Math.round((Date.now() - t0) / 1000)} s)`,
      );
    }
    await rebuild();
    await owner.query('vacuum analyze events.feed');
    // Write the bulk load's dirty pages out now, not during the measurements.
    await owner.query('checkpoint');
    const loadSeconds = (Date.now() - t0) / 1000;
    const maxTx = Math.floor(size.total / PER_TX) + 3;
    const footprintBefore = await databaseFootprint(owner);
    const ioAfterLoad = programIo('postgres');

    nc = await testBus('bench-feed', { user: 'gateway' });
    const fetchFromService = feedFetcher(nc, subjectsFor(prefix));
    const keysOf = new Map(tenantKeys.map((t) => [t.tenantId, t]));
    const fetchFromGateway = async (tenantId: string, query: Record<string, unknown>): Promise<ReceivedPage> => {
      const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
      const text = await requestText('GET', `${base}/api/v1/catalog/events?${search}`, {
        authorization: `Bearer ${keysOf.get(tenantId)!.next()}`,
      });
      return () => JSON.parse(text) as EventsPage;
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
    // With a largest tenant, it and the other measured tenants are reported apart.
    const classes: Array<{ name: string; pick: () => string }> =
      size.largest > 0
        ? [
            { name: 'largest tenant', pick: () => tenants[0]! },
            { name: 'other tenants', pick: () => pick(tenants.slice(1)) },
          ]
        : [{ name: 'all tenants', pick: () => pick(tenants) }];
    const results: Record<string, Record<string, unknown>> = {};
    const client = clientCollections();
    // One page, timed to its last byte; parsed, then the client's young generation collected, after the window.
    const timedPage = async (fetch: () => Promise<ReceivedPage>): Promise<{ window: Window; page: EventsPage }> => {
      const start = performance.now();
      const received = await fetch();
      const window: Window = [start, performance.now()];
      const page = received();
      client.collectYoung();
      return { window, page };
    };
    const warmUp: number[] = [];
    for (let i = 0; i < WARMUP; i += 1) {
      const tenantClass = classes[i % classes.length]!;
      const scenario = scenarios[Math.floor(i / classes.length) % scenarios.length]!;
      const tenant = tenantClass.pick();
      const { window } = await timedPage(() => fetchFromGateway(tenant, scenario.query(tenant)));
      warmUp.push(window[1] - window[0]);
    }
    const half = Math.floor(warmUp.length / 2);
    const warmUpLatencyMs =
      warmUp.length > 1 ? { firstHalf: percentiles(warmUp.slice(0, half)), secondHalf: percentiles(warmUp.slice(half)) } : null;
    console.log(`[page] warm-up: ${WARMUP} requests through the gateway: ${JSON.stringify(warmUpLatencyMs)}`);
    for (const path of paths) {
      results[path.name] = { note: path.note };
      for (const tenantClass of classes) {
        for (const scenario of scenarios) {
          for (let i = 0; i < 50; i += 1) {
            const tenant = tenantClass.pick();
            await path.call(tenant, scenario.query(tenant)); // warm-up
          }
          const windows: Window[] = [];
          let returned = 0;
          const cpuBefore = processes.map((p) => processCpuMs(p.child.pid!));
          for (let i = 0; i < REQUESTS; i += 1) {
            const tenant = tenantClass.pick();
            const { window, page } = await timedPage(() => path.call(tenant, scenario.query(tenant)));
            windows.push(window);
            returned += page.events.length;
          }
          const latencies = windows.map(([start, end]) => end - start);
          // CPU per page of each service (10 ms ticks, so only a mean over the scenario's requests).
          const cpuUsPerPage = Object.fromEntries(
            processes.map((p, i) => [p.name, Math.round(((processCpuMs(p.child.pid!) - cpuBefore[i]!) * 1000) / REQUESTS)]),
          );
          const name = classes.length > 1 ? `${tenantClass.name}: ${scenario.name}` : scenario.name;
          results[path.name]![name] = {
            latencyMs: percentiles(latencies),
            meanEvents: Math.round(returned / REQUESTS),
            cpuUsPerPage,
            clientGcInWindows: await client.overlapping(windows),
          };
          console.log(`[page] ${path.name}: ${name}: ${JSON.stringify(results[path.name]![name])}`);
        }
      }
    }
    client.stop();

    // EXPLAIN ANALYZE as the service runs it: the app role, one tenant set for row-level security.
    const explain = async (label: string, types: string[] | null): Promise<string> => {
      const tenantId = tenants[0]!;
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
    const afterMeasuring = await databaseFootprint(owner);
    return {
      rows: size.total,
      tenants: size.tenants,
      largestTenantRows: size.largest,
      measuredTenants: size.measured,
      postgres: {
        ...footprintBefore,
        afterMeasuring,
        // Each gateway page's rate-limit admission is a commit; it no longer waits for a WAL flush (decision 0185).
        walSyncsMeasuring: afterMeasuring.walSyncs - footprintBefore.walSyncs,
        note: 'blks: this database, pg_stat_database; walSyncs: the cluster, pg_stat_wal; io: every postgres process on the machine (/proc/<pid>/io), so other work adds to both',
        loadIoMiB: ioMiB(ioBeforeLoad, ioAfterLoad),
        measuringIoMiB: ioMiB(ioAfterLoad, programIo('postgres')),
      },
      loadSeconds,
      requestsPerScenario: REQUESTS,
      warmUp: {
        requests: WARMUP,
        note: 'through the gateway, every tenant class and scenario in turn, before any scenario is measured (decision 0179); latency of its halves',
        latencyMs: warmUpLatencyMs,
      },
      sequential: 'one request at a time, random tenant, random cursor position',
      clientGc:
        'the client runs a young-generation collection of its own after each request, outside its window (bench/support/client-gc.ts); clientGcInWindows: requests a client collection still fell into',
      scenarios: results,
      peakRssMiB: Object.fromEntries(processes.map((p) => [p.name, p.peakRssMiB()])),
      memoryLimits: memoryLimits(processes),
      target: { p99Ms: 10 },
    };
  } finally {
    await nc?.drain().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await owner.end().catch(() => undefined);
    await database.drop();
  }
}
