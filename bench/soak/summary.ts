/**
 * The soak's table for docs/benchmarks.md, from bench/results/soak.json:
 * `node --conditions=source --import tsx bench/soak/summary.ts` prints its Machine line and table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/processes.js';
import { FEED_CLASSES } from './latency.js';
import { restartedIn, rssReferenceMiB } from './targets.js';

interface Soak {
  date: string;
  machine: { cpus: number; model: string; node: string };
  settings: { minutes: number; writesPerSecond: number };
  minutes: Array<{
    minute: number;
    loadAverage: number[];
    processes: Record<string, { rssMiB: number; heapUsedMiB?: number; heapTotalMiB?: number; rssAnonMiB?: number }>;
    requests: Record<string, { count: number; p99Ms: number; failures: Record<string, number> }>;
    feedVisibility: { count: number; p50Ms: number; p99Ms: number };
    writesShed: number;
  }>;
  memoryLimitsMiB: Record<string, number>;
  kills: Array<{ minute: number; service: string; readyAfterMs: number | null }>;
  oomKills: number;
  feed: {
    acknowledgedWrites: number;
    missing: number;
    duplicated: number;
    imports: Array<{ created: number; entityCreatedEvents: number }>;
  };
  imports: Array<{ state: string; runMs: number | null }>;
  libraryCaughtUpMs: number | null;
  referenceMinute: number;
  p99Misses: Array<{ killMinute: boolean }>;
  met: Record<string, boolean>;
}

const soak = JSON.parse(readFileSync(join(repoRoot, 'bench', 'results', 'soak.json'), 'utf8')) as Soak;
const yes = (met: boolean | undefined) => (met ? 'yes' : 'no');
const loads = soak.minutes.map((m) => m.loadAverage[0] ?? 0);
const services = Object.keys(soak.memoryLimitsMiB);
const tail = soak.minutes.slice(soak.referenceMinute);
const rss = services
  .map((s) => {
    const base = rssReferenceMiB(tail, soak.kills, s);
    const values = tail
      .filter((m) => !restartedIn(soak.kills, s, m.minute))
      .map((m) => m.processes[s]?.rssMiB ?? 0)
      .filter((v) => v > 0);
    return `${s} ${base} → ${Math.min(...values)}–${Math.max(...values)}`;
  })
  .join(', ');
/** Each service's median RSS over the first ten minutes, ten from the reference minute, and the last ten: a leak climbs, GC's sawtooth does not. */
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const windows = [0, soak.referenceMinute, Math.max(0, soak.minutes.length - 10)];
const medians = services
  .map(
    (s) => `${s} ${windows.map((from) => median(soak.minutes.slice(from, from + 10).map((m) => m.processes[s]?.rssMiB ?? 0))).join(' / ')}`,
  )
  .join(', ');
const peakShare = Math.max(
  ...services.map((s) => Math.max(...soak.minutes.map((m) => m.processes[s]?.rssMiB ?? 0)) / soak.memoryLimitsMiB[s]!),
);
const writesPerMinute = soak.minutes.map((m) =>
  ['entity.create', 'relation.create', 'version.create', 'markers.put', 'assignment.put', 'sync.report'].reduce(
    (sum, name) => sum + (m.requests[name]?.count ?? 0),
    0,
  ),
);
const visibility = soak.minutes.map((m) => m.feedVisibility.p99Ms).filter(Number.isFinite);
const importsDone = soak.imports.filter((i) => i.state === 'succeeded');
const missesInKills = soak.p99Misses.filter((m) => m.killMinute).length;
const ready = soak.kills.map((k) => k.readyAfterMs).filter((ms): ms is number => ms !== null);
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const range = (values: number[], format: (v: number) => string) =>
  values.length === 0 ? '–' : `${format(Math.min(...values))}–${format(Math.max(...values))}`;

console.log(
  `**Machine:** ${soak.machine.cpus} vCPU ${soak.machine.model}, Node ${soak.machine.node.replace(/^v/, '')}; ${soak.date.slice(0, 16).replace('T', ' ')} UTC, ` +
    `${soak.settings.minutes} minutes, load average ${range(loads, String)}.\n`,
);
console.log('| measure | result | target | met |');
console.log('|---|---|---|---|');
console.log(
  `| OOM kills | ${soak.oomKills}; peak RSS ≤ ${Math.round(peakShare * 100)} % of the limits | none | ${yes(soak.met.noOomKill)} |`,
);
console.log(
  `| RSS MiB at minute ${soak.referenceMinute} → after, restart minutes apart | ${rss} | ±10 % | ${yes(soak.met.rssWithin10PercentOfReference)} |`,
);
console.log(
  `| RSS MiB, median of minutes ${windows.map((from) => `${from}–${Math.min(soak.minutes.length, from + 10) - 1}`).join(' / ')} | ${medians} | | |`,
);
console.log(
  `| class-minutes with p99 > 2× the first sixth's | ${soak.p99Misses.length} (${missesInKills} in a kill's minute) | none | ${yes(soak.met.p99AtMostTwiceBaseline)} |`,
);
const once = soak.feed.acknowledgedWrites - soak.feed.missing - soak.feed.duplicated;
const importsWhole = soak.feed.imports.filter((i) => i.entityCreatedEvents === i.created).length;
console.log(
  `| acknowledged writes once in the feed | ${once} of ${soak.feed.acknowledgedWrites} (${soak.feed.missing} missing, ${soak.feed.duplicated} twice); ` +
    `imports whole ${importsWhole} of ${soak.feed.imports.length} | all | ${yes(soak.met.everyWriteOnceInFeed)} |`,
);
console.log(
  `| library caught up after the end | ${soak.libraryCaughtUpMs === null ? 'not in 60 s' : `${seconds(soak.libraryCaughtUpMs)} s`} | ≤ 10 s | ${yes(soak.met.libraryCaughtUpWithin10s)} |`,
);
console.log(
  `| writes answered a minute (of ${soak.settings.writesPerSecond * 60}); imports | ${range(writesPerMinute, String)} ` +
    `(${soak.minutes.reduce((sum, m) => sum + m.writesShed, 0)} shed); ${importsDone.length} of ${soak.imports.length} in ` +
    `${range(
      importsDone.map((i) => i.runMs ?? 0),
      seconds,
    )} s | | |`,
);
/** Where a service's RSS is at the reference minute (decision 0182): anonymous pages against V8's committed heap. */
const reference = soak.minutes[soak.referenceMinute];
const heapShare = services
  .map((s) => `${s} ${reference?.processes[s]?.rssAnonMiB ?? '–'} / ${reference?.processes[s]?.heapTotalMiB ?? '–'}`)
  .join(', ');
console.log(`| anonymous RSS / heapTotal MiB at minute ${soak.referenceMinute} | ${heapShare} | | |`);
const feedClasses = Object.values(FEED_CLASSES);
const feedMinutes = soak.minutes.map((m) => feedClasses.map((name) => m.requests[name]).filter((r) => r !== undefined));
const refused = feedMinutes.flat().reduce((sum, r) => sum + (r.failures['429'] ?? 0), 0);
const feedP99 = feedClasses
  .map((name) => {
    const p99s = soak.minutes.map((m) => m.requests[name]?.p99Ms).filter((ms): ms is number => Number.isFinite(ms));
    return p99s.length === 0 ? null : `${name} ${range(p99s, (ms) => String(Math.round(ms)))} ms`;
  })
  .filter(Boolean)
  .join(', ');
console.log(
  `| SDK feed consumers: requests a minute; 429s; p99 a minute | ${range(
    feedMinutes.map((rs) => rs.reduce((sum, r) => sum + r.count, 0)),
    String,
  )}; ${refused}; ${feedP99} | | |`,
);
console.log(
  `| feed visibility p99 a minute; SIGKILLs → ready | ${range(visibility, seconds)} s; ${soak.kills.length} → ${range(ready, seconds)} s | | |`,
);
