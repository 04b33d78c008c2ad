/**
 * The soak's table for docs/benchmarks.md, from bench/results/soak.json:
 * `node --conditions=source --import tsx bench/soak/summary.ts` prints its Machine line and table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/processes.js';

interface Soak {
  date: string;
  machine: { cpus: number; model: string; node: string };
  settings: { minutes: number; writesPerSecond: number };
  minutes: Array<{
    minute: number;
    loadAverage: number[];
    processes: Record<string, { rssMiB: number; heapUsedMiB?: number }>;
    requests: Record<string, { count: number; p99Ms: number; failures: Record<string, number> }>;
    feedVisibility: { count: number; p50Ms: number; p99Ms: number };
    writesShed: number;
  }>;
  memoryLimitsMiB: Record<string, number>;
  kills: Array<{ service: string; readyAfterMs: number | null }>;
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
  rssMisses: unknown[];
  p99Misses: Array<{ killMinute: boolean }>;
  met: Record<string, boolean>;
}

const soak = JSON.parse(readFileSync(join(repoRoot, 'bench', 'results', 'soak.json'), 'utf8')) as Soak;
const yes = (met: boolean | undefined) => (met ? 'yes' : 'no');
const loads = soak.minutes.map((m) => m.loadAverage[0] ?? 0);
const reference = soak.minutes[soak.referenceMinute];
const services = Object.keys(soak.memoryLimitsMiB);
const tail = soak.minutes.slice(soak.referenceMinute);
const rss = services
  .map((s) => {
    const base = reference?.processes[s]?.rssMiB ?? 0;
    const values = tail.map((m) => m.processes[s]?.rssMiB ?? 0).filter((v) => v > 0);
    const peak = Math.max(...soak.minutes.map((m) => m.processes[s]?.rssMiB ?? 0));
    return `${s} ${base} (${Math.min(...values)}–${Math.max(...values)}; peak ${peak}/${soak.memoryLimitsMiB[s]})`;
  })
  .join(', ');
const writesPerMinute = soak.minutes.map((m) =>
  ['entity.create', 'relation.create', 'version.create', 'markers.put', 'assignment.put', 'sync.report'].reduce(
    (sum, name) => sum + (m.requests[name]?.count ?? 0),
    0,
  ),
);
const visibility = soak.minutes.map((m) => m.feedVisibility.p99Ms).filter(Number.isFinite);
const importsDone = soak.imports.filter((i) => i.state === 'succeeded');
const missesInKills = soak.p99Misses.filter((m) => m.killMinute).length;

console.log(
  `**Machine:** ${soak.machine.cpus} vCPU ${soak.machine.model}, Node ${soak.machine.node.replace(/^v/, '')}; ${soak.date.slice(0, 16).replace('T', ' ')} UTC, ` +
    `${soak.settings.minutes} minutes, load average ${Math.min(...loads)}–${Math.max(...loads)} (other work).\n`,
);
console.log('| measure | result | target | met |');
console.log('|---|---|---|---|');
console.log(`| OOM kills (cgroup \`oom_kill\`) | ${soak.oomKills} | none | ${yes(soak.met.noOomKill)} |`);
console.log(
  `| RSS MiB at minute ${soak.referenceMinute} (range after it; peak/limit) | ${rss} | ±10 % | ${yes(soak.met.rssWithin10PercentOfReference)} |`,
);
console.log(
  `| minutes with a class's p99 > 2× its first-sixth p99 | ${soak.p99Misses.length} (${missesInKills} in a kill's minute) | none | ${yes(soak.met.p99AtMostTwiceBaseline)} |`,
);
console.log(
  `| acknowledged writes in the feed once | ${soak.feed.acknowledgedWrites - soak.feed.missing - soak.feed.duplicated} of ${soak.feed.acknowledgedWrites} ` +
    `(missing ${soak.feed.missing}, twice ${soak.feed.duplicated}); imports ${soak.feed.imports.filter((i) => i.entityCreatedEvents === i.created).length} of ${soak.feed.imports.length} complete | all | ${yes(soak.met.everyWriteOnceInFeed)} |`,
);
console.log(
  `| library shows the last tracks after the load stopped | ${soak.libraryCaughtUpMs ?? 'not within 60 s'} ms | ≤ 10 s | ${yes(soak.met.libraryCaughtUpWithin10s)} |`,
);
console.log(
  `| writes answered per minute (of ${soak.settings.writesPerSecond * 60}) | ${Math.min(...writesPerMinute)}–${Math.max(...writesPerMinute)}; shed ${soak.minutes.reduce((s, m) => s + m.writesShed, 0)} | | |`,
);
console.log(`| feed visibility p99 per minute | ${Math.min(...visibility)}–${Math.max(...visibility)} ms | | |`);
console.log(
  `| imports of 10,000 rows | ${importsDone.length} of ${soak.imports.length} succeeded, ${importsDone.map((i) => Math.round((i.runMs ?? 0) / 1000)).join(', ')} s | | |`,
);
console.log(
  `| SIGKILLs → ready again | ${soak.kills.map((k) => `${k.service} ${k.readyAfterMs === null ? '–' : (k.readyAfterMs / 1000).toFixed(1)} s`).join(', ')} | | |`,
);
