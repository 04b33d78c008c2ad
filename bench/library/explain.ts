/**
 * EXPLAIN (ANALYZE, BUFFERS) of the library's search statements at a benchmark size, written to
 * bench/results/library-explain.txt: the tracks are loaded as bench/library/run.ts loads them
 * (BENCH_LIBRARY_TRACKS in BENCH_LIBRARY_TENANTS, half in the first), and the statements the
 * service builds for `q` + a 20-BPM range + entityType=song run as library_app under row-level
 * security, each twice (the second, warm, is written). BENCH_EXPLAIN_KEEP=1 leaves the database
 * behind and prints its name; BENCH_EXPLAIN_DATABASE=<name> reuses it (a 1,000,000-track load
 * takes minutes).
 *
 * `node --conditions=source --import tsx bench/library/explain.ts` with DATABASE_URL set.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import pg from 'pg';
import { migrateSchema, SCHEMA_OWNER_ROLE } from '@catalog/platform';
import { testCredentials } from '@catalog/testing';
import { libraryMigrations } from '../../services/library/src/migrations/index.js';
import { trackSearchQuery, type TrackSearch } from '../../services/library/src/persistence/track-search.js';
import { repoRoot } from '../support/processes.js';
import { createBenchDatabase } from '../support/setup.js';
import { librarySize, loadLibrary, vocabulary } from './load.js';

if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is required');

/** Compiles statements without a connection. */
const compiler = new Kysely<unknown>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

function urlOf(name: string, role?: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  if (role) {
    url.username = role;
    url.password = testCredentials().postgresPassword(role);
  }
  return url.toString();
}

/** The database to explain in, loaded, and its largest tenant. */
async function database(): Promise<{ name: string; tenantId: string }> {
  const reuse = process.env.BENCH_EXPLAIN_DATABASE;
  if (reuse) {
    const client = new pg.Client({ connectionString: urlOf(reuse) });
    await client.connect();
    const { rows } = await client.query(`select tenant_id from library.tracks group by tenant_id order by count(*) desc limit 1`);
    await client.end();
    return { name: reuse, tenantId: rows[0].tenant_id };
  }
  const created = await createBenchDatabase('library_explain');
  await migrateSchema({ url: created.urlAs(SCHEMA_OWNER_ROLE), schema: 'library', role: 'library_app', migrations: libraryMigrations });
  const size = librarySize();
  const tenants = Array.from({ length: size.tenants }, () => randomUUID());
  const owner = new pg.Client({ connectionString: created.url });
  await owner.connect();
  const loaded = await loadLibrary(owner, tenants, size.tracks, vocabulary());
  await owner.end();
  console.error(`loaded ${JSON.stringify(loaded)} into ${created.name}`);
  return { name: created.name, tenantId: tenants[0]! };
}

const { name, tenantId } = await database();
const app = new pg.Client({ connectionString: urlOf(name, 'library_app') });
await app.connect();
await app.query("select set_config('app.tenant_id', $1, false)", [tenantId]);
const settings = (await app.query(`select current_setting('shared_buffers') as sb, current_setting('work_mem') as wm`)).rows[0];

const filters = { bpmMin: 90, bpmMax: 110, camelot: null, entityType: 'song' };
const cases: Array<{ label: string; q: string; sort: TrackSearch['sort'] }> = [
  { label: 'q=lone (a whole word), sort relevance', q: 'lone', sort: 'relevance' },
  { label: 'q=tam (a 3-letter prefix), sort relevance', q: 'tam', sort: 'relevance' },
  { label: 'q=lone ta (a word and a prefix), sort relevance', q: 'lone ta', sort: 'relevance' },
  { label: 'q=lone, sort title', q: 'lone', sort: 'title' },
  { label: 'q=tam, sort bpm', q: 'tam', sort: 'bpm' },
];
const out: string[] = [
  `-- bench/library/explain.ts: ${librarySize().tracks} tracks in ${librarySize().tenants} tenants (half in the searched one), as library_app`,
  `-- under row-level security; the service's statements for q + bpmMin=90&bpmMax=110&entityType=song, limit 50 (+1);`,
  `-- shared_buffers ${settings.sb}, work_mem ${settings.wm}; ${new Date().toISOString()}, load average ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}. Second run of each (warm).`,
];
for (const c of cases) {
  const words = c.q.split(' ');
  const tsQuery = words.map((w, i) => (i === words.length - 1 ? `${w}:*` : w)).join(' & ');
  const search: TrackSearch = {
    tenantId,
    tsQuery,
    words,
    filters,
    sort: c.sort,
    descending: c.sort === 'relevance',
    after: null,
    take: 51,
  };
  const compiled = trackSearchQuery(search).compile(compiler);
  const explain = `explain (analyze, buffers) ${compiled.sql}`;
  await app.query(explain, [...compiled.parameters]);
  const { rows } = await app.query<{ 'QUERY PLAN': string }>(explain, [...compiled.parameters]);
  out.push('', `-- ${c.label}`, ...rows.map((r) => r['QUERY PLAN']));
}
await app.end();
writeFileSync(join(repoRoot, 'bench', 'results', 'library-explain.txt'), `${out.join('\n')}\n`);
console.log(out.join('\n'));
if (!process.env.BENCH_EXPLAIN_DATABASE && !process.env.BENCH_EXPLAIN_KEEP) {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
} else console.error(`database kept: ${name}`);
