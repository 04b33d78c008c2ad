import type { ClassMinute } from './latency.js';

/**
 * The soak's targets, checked on its per-minute record: no OOM kill; every process's RSS over
 * the last two thirds of the run (the last 40 minutes of an hour) within ±10 % of its value at the
 * end of the first third (minute 20); each request class's p99 in every minute at most twice its
 * p99 over the first sixth (the first ten minutes); every acknowledged write exactly once in the
 * feed; the library caught up within 10 s of the end. Each miss is listed, so it can be explained
 * (a kill that minute, the machine's load average).
 */
export interface MinuteRecord {
  minute: number;
  loadAverage: number[];
  processes: Record<string, { rssMiB: number; oomKills: number }>;
  requests: Record<string, ClassMinute>;
}

export interface TargetInput {
  minutes: MinuteRecord[];
  /** p99 per class over the first sixth of the run. */
  baselineP99Ms: Record<string, number>;
  oomKills: number;
  feed: { missing: number; duplicated: number; importsShort: number };
  libraryCaughtUpMs: number | null;
  /** Minutes in which a service was killed (their misses are the kill's). */
  killMinutes: number[];
}

export function referenceMinute(totalMinutes: number): number {
  return Math.round(totalMinutes / 3);
}

export function baselineMinutes(totalMinutes: number): number {
  return Math.max(1, Math.round(totalMinutes / 6));
}

export function evaluateTargets(input: TargetInput) {
  const total = input.minutes.length;
  const reference = input.minutes[referenceMinute(total)];
  const rssMisses: Array<{ service: string; minute: number; rssMiB: number; referenceMiB: number }> = [];
  if (reference) {
    for (const record of input.minutes.slice(referenceMinute(total))) {
      for (const [service, now] of Object.entries(record.processes)) {
        const base = reference.processes[service]?.rssMiB ?? 0;
        if (base > 0 && now.rssMiB > 0 && Math.abs(now.rssMiB / base - 1) > 0.1) {
          rssMisses.push({ service, minute: record.minute, rssMiB: now.rssMiB, referenceMiB: base });
        }
      }
    }
  }
  const p99Misses: Array<{
    requestClass: string;
    minute: number;
    p99Ms: number;
    baselineP99Ms: number;
    killMinute: boolean;
    load1: number;
  }> = [];
  for (const record of input.minutes) {
    for (const [requestClass, figures] of Object.entries(record.requests)) {
      const baseline = input.baselineP99Ms[requestClass];
      if (baseline && figures.count > 0 && figures.p99Ms > 2 * baseline) {
        p99Misses.push({
          requestClass,
          minute: record.minute,
          p99Ms: figures.p99Ms,
          baselineP99Ms: baseline,
          killMinute: input.killMinutes.includes(record.minute),
          load1: record.loadAverage[0] ?? 0,
        });
      }
    }
  }
  return {
    met: {
      noOomKill: input.oomKills === 0,
      rssWithin10PercentOfReference: reference !== undefined && rssMisses.length === 0,
      p99AtMostTwiceBaseline: p99Misses.length === 0,
      p99AtMostTwiceBaselineOutsideKillMinutes: p99Misses.every((miss) => miss.killMinute),
      everyWriteOnceInFeed: input.feed.missing === 0 && input.feed.duplicated === 0 && input.feed.importsShort === 0,
      libraryCaughtUpWithin10s: input.libraryCaughtUpMs !== null && input.libraryCaughtUpMs <= 10_000,
    },
    referenceMinute: referenceMinute(total),
    rssMisses,
    p99Misses,
  };
}
