import { FEED_CLASSES, type ClassMinute } from './latency.js';

/**
 * Request classes whose time is a wait by design, recorded but not held to the p99 target
 * (decision 0183): a feed long poll answers when the station's next event is visible.
 */
export const WAITING_CLASSES: ReadonlySet<string> = new Set([FEED_CLASSES.longPoll]);

/**
 * The soak's targets, checked on its per-minute record: no OOM kill; every process's RSS (a
 * minute's peak, decision 0180) over the last two thirds of the run (the last 40 minutes of an
 * hour) within ±10 % of its value in the first minute of the last two thirds (minute 20), a
 * service's restart minute apart (a new process that starts empty; listed, and met once more with
 * them counted); each request class's p99 in every minute at most twice its p99 over the first
 * sixth (the first ten minutes), but for the long polls of WAITING_CLASSES; every acknowledged
 * write exactly once in the feed; the library caught up within 10 s of the end. Each miss is
 * listed, so it can be explained (a kill that minute, the machine's load average).
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
  /** The services killed and when (the misses of their minutes are the kill's). */
  kills: Array<{ minute: number; service: string }>;
}

/** Whether a service is killed at the start of `minute`: the middle minute of each block of `every` (2, 7, 12, … for 5). */
export function isKillMinute(minute: number, every: number): boolean {
  return minute % every === Math.floor(every / 2);
}

type Kills = TargetInput['kills'];
type ProcessMinute = { minute: number; processes: Record<string, { rssMiB: number }> };

/** Whether `service` was killed, and so started again, in `minute`. */
export function restartedIn(kills: Kills, service: string, minute: number): boolean {
  return kills.some((kill) => kill.minute === minute && kill.service === service);
}

/** A service's RSS reference: its RSS in the first minute of `tail` it ran whole (not restarted in); 0 if none. */
export function rssReferenceMiB(tail: ProcessMinute[], kills: Kills, service: string): number {
  return tail.find((record) => !restartedIn(kills, service, record.minute))?.processes[service]?.rssMiB ?? 0;
}

export function referenceMinute(totalMinutes: number): number {
  return Math.round(totalMinutes / 3);
}

export function baselineMinutes(totalMinutes: number): number {
  return Math.max(1, Math.round(totalMinutes / 6));
}

export function evaluateTargets(input: TargetInput) {
  const total = input.minutes.length;
  const tail = input.minutes.slice(referenceMinute(total));
  const rssMisses: Array<{ service: string; minute: number; rssMiB: number; referenceMiB: number; restartMinute: boolean }> = [];
  for (const record of tail) {
    for (const [service, now] of Object.entries(record.processes)) {
      const base = rssReferenceMiB(tail, input.kills, service);
      if (base > 0 && now.rssMiB > 0 && Math.abs(now.rssMiB / base - 1) > 0.1) {
        rssMisses.push({
          service,
          minute: record.minute,
          rssMiB: now.rssMiB,
          referenceMiB: base,
          restartMinute: restartedIn(input.kills, service, record.minute),
        });
      }
    }
  }
  const killMinutes = input.kills.map((kill) => kill.minute);
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
      if (WAITING_CLASSES.has(requestClass)) continue;
      const baseline = input.baselineP99Ms[requestClass];
      if (baseline && figures.count > 0 && figures.p99Ms > 2 * baseline) {
        p99Misses.push({
          requestClass,
          minute: record.minute,
          p99Ms: figures.p99Ms,
          baselineP99Ms: baseline,
          killMinute: killMinutes.includes(record.minute),
          load1: record.loadAverage[0] ?? 0,
        });
      }
    }
  }
  return {
    met: {
      noOomKill: input.oomKills === 0,
      rssWithin10PercentOfReference: tail.length > 0 && rssMisses.every((miss) => miss.restartMinute),
      rssWithin10PercentRestartMinutesToo: tail.length > 0 && rssMisses.length === 0,
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
