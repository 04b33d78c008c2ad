import { readFileSync } from 'node:fs';

const MiB = 2 ** 20;

/** One process's resident set over a minute, from samples every few seconds. */
export interface RssMinute {
  /** The highest sample: what the memory limit met that minute. */
  peakMiB: number;
  /** The lowest sample. */
  lowMiB: number;
  /** The sample at the minute's end (the one point a minute the soak recorded before decision 0180). */
  endMiB: number;
  samples: number;
}

export interface RssSampler {
  /** Each process's figures since the last call; a process that was never seen running is absent. */
  closeMinute(): Record<string, RssMinute>;
  stop(): void;
}

/** The resident set of a running process, in bytes (0 when it is gone). */
export function rssBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Samples the resident set of each named process every `everyMs` (`pidOf` names the running
 * process, which changes when one is restarted). A point a minute caught V8's sawtooth anywhere
 * between a collection and the next; a minute's peak is what a memory limit meets (decision 0180).
 */
export function startRssSampler(names: readonly string[], pidOf: (name: string) => number | undefined, everyMs: number): RssSampler {
  let current = new Map<string, number[]>();
  const sample = (): void => {
    for (const name of names) {
      const bytes = rssBytes(pidOf(name));
      if (bytes === 0) continue;
      const values = current.get(name) ?? [];
      values.push(Math.round(bytes / MiB));
      current.set(name, values);
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    closeMinute() {
      sample();
      const closed = current;
      current = new Map();
      return Object.fromEntries(
        [...closed].map(([name, values]) => [
          name,
          { peakMiB: Math.max(...values), lowMiB: Math.min(...values), endMiB: values.at(-1)!, samples: values.length },
        ]),
      );
    },
    stop: () => clearInterval(timer),
  };
}
