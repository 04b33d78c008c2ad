/** The page benchmark of bench/events/run.ts (see there): feed page latency on a million events. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { subjectsFor, type NatsConnection } from '@catalog/platform';
import { feedCursors, feedPageStatement } from '@catalog/events';
import { testBus } from '@catalog/testing';
import { memoryLimits, startService, type BenchProcess } from '../support/processes.js';
import { benchEnv, createBenchDatabase, requestText } from '../support/setup.js';
import { createTenants, CURSOR_SECRET, feedFetcher, percentiles, resultsDir, TENANTS } from './feed.js';

const TOTAL = Number(process.env.BENCH_FEED_ROWS ?? 1_000_000);
const PER_TX = 50;
export async function pageBench(): Promise<Record<string, unknown>> {
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
      memoryLimits: memoryLimits(processes),
      target: { p99Ms: 25 },
    };
  } finally {
    await nc?.drain().catch(() => undefined);
    for (const p of processes.reverse()) await p.stop();
    await owner.end().catch(() => undefined);
    await database.drop();
  }
}
