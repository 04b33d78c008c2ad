/**
 * Soak benchmark (bench/soak, not in CI): `npm run bench -- soak`. Results: bench/results/soak.json
 * and bench/results/soak.png.
 *
 *   The whole system as `npm start` runs it (the six services under its supervisor, which
 *   restarts a killed one), each service from its built output with its chart Node flags in a
 *   cgroup v1 memory cgroup of its chart limit (bench/soak/system.ts), for SOAK_MINUTES (60), with
 *   a station group's load: SOAK_STATIONS (10) tenants writing SOAK_WRITES_PER_SECOND (200)
 *   writes/s between them (entities, relations, versions with uploads, markers, assignments,
 *   sync reports: writes.ts), an analysis a second and an import of SOAK_IMPORT_ROWS (10,000)
 *   rows every SOAK_IMPORT_EVERY_MINUTES (10) (jobs.ts), library searches (searches.ts) and each
 *   station's feed consumer (the SDK's: feed.ts). Every SOAK_KILL_EVERY_MINUTES (5) one service in
 *   turn gets SIGKILL, at the start of the middle minute of each block (minutes 2, 7, 12, …: none
 *   in the reference minute); the supervisor starts it again.
 *   Per minute: RSS (peak, low and last of samples every SOAK_RSS_SAMPLE_SECONDS, 5), heap
 *   (heap-probe.mjs: V8's heap and its spaces, RSS as anonymous and file-backed pages) and cgroup
 *   counters of every process, p50/p99 of every request class (the feed consumers' long polls
 *   as feed.longPoll, decision 0183), feed visibility, writes shed, the load average; then kills,
 *   restarts, OOM kills, whether every acknowledged write reached the feed once, how long the
 *   library took to show the last tracks after the load stopped, and the targets (targets.ts).
 *   Needs root (the memory controller at /sys/fs/cgroup/memory), DATABASE_URL and NATS_URL, and
 *   `npm run build`.
 *   For a diagnosis: SOAK_PROBE_TRACE=DIR keeps every service's probe samples, one a second, in
 *   DIR/<service>.log; SOAK_NODE_FLAGS_<SERVICE> adds Node flags to one service (decision 0182).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from '@catalog/platform';
import { sineWav } from '@catalog/testing';
import { SERVICE_NAMES } from '../../scripts/dev/services.js';
import { machine, repoRoot } from '../support/processes.js';
import { benchEnv, createBenchDatabase } from '../support/setup.js';
import { renderSoakChart } from './chart.js';
import { feedLedger } from './feed.js';
import { startJobs } from './jobs.js';
import { latencyBook, timedFeedFetch } from './latency.js';
import { createStations } from './stations.js';
import { startSearches } from './searches.js';
import { startRssSampler } from './rss-sampler.js';
import { soakNodeFlags, startSoakSystem } from './system.js';
import { baselineMinutes, evaluateTargets, isKillMinute, type MinuteRecord } from './targets.js';
import { startWrites } from './writes.js';
import { libraryCatchUpMs } from './library.js';

if (!process.env.DATABASE_URL || !process.env.NATS_URL) throw new Error('DATABASE_URL and NATS_URL are required (npm run bench -- soak)');
const number = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
const settings = {
  minutes: number('SOAK_MINUTES', 60),
  stations: number('SOAK_STATIONS', 10),
  writesPerSecond: number('SOAK_WRITES_PER_SECOND', 200),
  analysesPerSecond: number('SOAK_ANALYSES_PER_SECOND', 1),
  searchesPerSecond: number('SOAK_SEARCHES_PER_SECOND', 5),
  importRows: number('SOAK_IMPORT_ROWS', 10_000),
  importEveryMinutes: number('SOAK_IMPORT_EVERY_MINUTES', 10),
  killEveryMinutes: number('SOAK_KILL_EVERY_MINUTES', 5),
  rssSampleSeconds: number('SOAK_RSS_SAMPLE_SECONDS', 5),
};
const MINUTE_MS = 60_000;
const MiB = 2 ** 20;
const resultsDir = join(repoRoot, 'bench', 'results');

interface Kill {
  minute: number;
  service: string;
  pid: number | undefined;
  /** From the SIGKILL to the restarted process answering /readyz. */
  readyAfterMs: number | null;
}

/** A process's heap probe figures in MiB: V8's heap, its spaces, and the anonymous and file-backed parts of its RSS. */
interface HeapFigures {
  heapUsedMiB: number;
  heapTotalMiB: number;
  heapLimitMiB: number;
  externalMiB: number;
  rssAnonMiB: number;
  rssFileMiB: number;
  heapSpacesMiB: { new: number; old: number; code: number; large: number };
}

function heapOf(probeDir: string, service: string, pid: number | undefined): HeapFigures | null {
  try {
    const sample = JSON.parse(readFileSync(join(probeDir, `${service}.json`), 'utf8')) as Record<string, number> & {
      spaces?: Record<string, number>;
    };
    if (sample.pid !== pid) return null;
    const mib = (bytes: number | undefined) => Math.round((bytes ?? 0) / MiB);
    const space = (name: string) => mib(sample.spaces?.[name]);
    return {
      heapUsedMiB: mib(sample.heapUsed),
      heapTotalMiB: mib(sample.heapTotal),
      heapLimitMiB: mib(sample.heapLimit),
      externalMiB: mib(sample.external),
      rssAnonMiB: mib(sample.rssAnon),
      rssFileMiB: mib(sample.rssFile),
      heapSpacesMiB: {
        new: space('new_space'),
        old: space('old_space'),
        code: space('code_space') + space('code_large_object_space'),
        large: space('large_object_space') + space('new_large_object_space'),
      },
    };
  } catch {
    return null;
  }
}

const work = mkdtempSync(join(tmpdir(), 'bench-soak-'));
const probeDir = join(work, 'probe');
mkdirSync(probeDir);
const database = await createBenchDatabase('soak');
const { env, adminToken } = await benchEnv(database, {
  BLOB_BACKEND: 'fs',
  BLOB_DIR: join(work, 'blobs'),
  BLOB_SIGNING_SECRET: randomBytes(32).toString('hex'),
});
const shared = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined));
const system = await startSoakSystem(shared, probeDir);
const base = system.gatewayUrl;
const stopConsumers = new AbortController();
let results: Record<string, unknown> = {};
try {
  const wav = await sineWav(1);
  const stations = await createStations(base, adminToken, settings.stations, wav, 1_000_000);
  const book = latencyBook();
  const ledger = feedLedger();
  const consumers = ledger.startConsumers(stations, base, timedFeedFetch(book), stopConsumers.signal);
  const writes = startWrites(base, stations, { perSecond: settings.writesPerSecond, maxInFlight: 256, wav }, book, ledger);
  const jobs = startJobs(
    base,
    stations,
    {
      analysesPerSecond: settings.analysesPerSecond,
      importRows: settings.importRows,
      importEveryMs: settings.importEveryMinutes * MINUTE_MS,
      firstImportAfterMs: MINUTE_MS,
    },
    book,
    ledger,
  );
  const searches = startSearches(base, stations, settings.searchesPerSecond, book);

  const minutes: Array<MinuteRecord & Record<string, unknown>> = [];
  const kills: Kill[] = [];
  const baselineDurations = new Map<string, number[]>();
  const rss = startRssSampler(SERVICE_NAMES, (service) => system.supervisor.pid(service), settings.rssSampleSeconds * 1000);
  const started = Date.now();
  for (let minute = 0; minute < settings.minutes; minute += 1) {
    // The kill of this minute, at its start.
    if (isKillMinute(minute, settings.killEveryMinutes)) {
      const service = SERVICE_NAMES[kills.length % SERVICE_NAMES.length]!;
      const kill: Kill = { minute, service, pid: system.supervisor.pid(service), readyAfterMs: null };
      kills.push(kill);
      const killedAt = performance.now();
      system.supervisor.kill(service, 'SIGKILL');
      void (async () => {
        await sleep(200);
        for (let i = 0; i < 600 && kill.readyAfterMs === null; i += 1) {
          const ready = await fetch(`${system.urls[service]}/readyz`, { signal: AbortSignal.timeout(1_000) }).catch(() => null);
          if (ready?.ok && system.supervisor.pid(service) !== kill.pid) kill.readyAfterMs = Math.round(performance.now() - killedAt);
          else await sleep(250);
        }
      })();
    }
    await sleep(started + (minute + 1) * MINUTE_MS - Date.now());
    const requests = book.closeMinute();
    if (minute < baselineMinutes(settings.minutes)) {
      for (const [name, figures] of Object.entries(requests)) {
        if (figures.count > 0) baselineDurations.set(name, [...(baselineDurations.get(name) ?? []), figures.p99Ms]);
      }
    }
    const rssMinute = rss.closeMinute();
    const processes = Object.fromEntries(
      SERVICE_NAMES.map((service) => {
        const pid = system.supervisor.pid(service);
        const counters = system.cgroups[service].counters();
        const sampled = rssMinute[service];
        return [
          service,
          {
            pid: pid ?? null,
            rssMiB: sampled?.peakMiB ?? 0,
            rssLowMiB: sampled?.lowMiB ?? 0,
            rssEndMiB: sampled?.endMiB ?? 0,
            ...heapOf(probeDir, service, pid),
            cgroupUsageMiB: Math.round(counters.usageBytes / MiB),
            cgroupRssMiB: Math.round(counters.rssBytes / MiB),
            cgroupCacheMiB: Math.round(counters.cacheBytes / MiB),
            failcnt: counters.failcnt,
            oomKills: counters.oomKills,
            starts: system.supervisor.starts(service),
          },
        ];
      }),
    );
    const record = {
      minute,
      loadAverage: loadavg().map((v) => Math.round(v * 100) / 100),
      processes,
      requests,
      feedVisibility: ledger.closeMinute(),
      writesShed: writes.closeMinute().shed,
    };
    minutes.push(record);
    process.stderr.write(
      `[soak] minute ${minute}: load ${record.loadAverage[0]}, rss ${SERVICE_NAMES.map((s) => `${s} ${processes[s]!.rssMiB}`).join(' ')}; ` +
        `entity.create p99 ${requests['entity.create']?.p99Ms ?? '-'} ms; feed visibility p99 ${record.feedVisibility.p99Ms} ms\n`,
    );
  }

  // The end: the load stops; then every acknowledged write must reach the feed, and the library the last tracks.
  rss.stop();
  searches.stop();
  await writes.stop();
  const libraryCaughtUpMs = await libraryCatchUpMs(base, writes.confirmedTracks(), performance.now(), 60_000);
  await jobs.stop();
  await ledger.untilComplete(120_000);
  stopConsumers.abort();
  await consumers;
  const feed = ledger.summary();
  const oomKills = SERVICE_NAMES.reduce((sum, s) => sum + system.cgroups[s].counters().oomKills, 0);
  // The baseline p99 of a class: the p99s of the first minutes' (their median, so one slow minute does not set it).
  const baselineP99Ms = Object.fromEntries(
    [...baselineDurations].map(([name, p99s]) => [name, p99s.sort((a, b) => a - b)[Math.floor(p99s.length / 2)]!]),
  );
  const importsShort = feed.imports.filter((job) => job.entityCreatedEvents !== job.created).length;
  const targets = evaluateTargets({
    minutes,
    baselineP99Ms,
    oomKills,
    feed: { missing: feed.missing, duplicated: feed.duplicated, importsShort },
    libraryCaughtUpMs,
    kills,
  });
  results = {
    benchmark: 'soak',
    date: new Date(started).toISOString(),
    machine: machine(),
    settings,
    memoryLimitsMiB: Object.fromEntries(SERVICE_NAMES.map((s) => [s, Math.round(system.cgroups[s].limitBytes / MiB)])),
    nodeFlags: Object.fromEntries(SERVICE_NAMES.map((s) => [s, soakNodeFlags(s)])),
    minutes,
    kills,
    restarts: system.exits.map((exit) => ({ service: exit.name, signal: exit.signal, code: exit.code, uptimeMs: exit.uptimeMs })),
    oomKills,
    imports: jobs.imports,
    feed,
    libraryCaughtUpMs,
    baselineP99Ms,
    ...targets,
  };
} finally {
  stopConsumers.abort();
  await system.stop();
  await database.drop();
  rmSync(work, { recursive: true, force: true });
}
mkdirSync(resultsDir, { recursive: true });
writeFileSync(join(resultsDir, 'soak.json'), `${JSON.stringify(results, null, 2)}\n`);
await renderSoakChart(results as unknown as Parameters<typeof renderSoakChart>[0], join(resultsDir, 'soak.png'));
console.log(
  JSON.stringify(
    { met: results.met, oomKills: results.oomKills, feed: results.feed, libraryCaughtUpMs: results.libraryCaughtUpMs },
    null,
    2,
  ),
);
console.log(`results in ${join(resultsDir, 'soak.json')} and soak.png`);
process.exit(0);
