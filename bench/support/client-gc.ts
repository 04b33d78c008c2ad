import { PerformanceObserver } from 'node:perf_hooks';
import { exposedGc } from '@catalog/testing';

/** A measured request's window on `performance.now()`: [start, end]. */
export type Window = readonly [number, number];

export interface ClientCollections {
  /** A young-generation collection of this process, run between two measured requests. */
  collectYoung(): void;
  /** How many of `windows` a collection of this process fell into (read once their requests are done). */
  overlapping(windows: readonly Window[]): Promise<number>;
  stop(): void;
}

/**
 * Keeps the load client's own garbage collection out of the latencies it measures. A client that
 * reads ~200 KB pages (and parses them to check them) fills its young generation every few dozen;
 * left alone, its collections (up to 10 ms, promoted pages then a full collection) land inside
 * the next request's window and are charged to the service. `collectYoung()` after each request,
 * outside its window, frees the page just read while it is garbage; `overlapping()` reports how
 * many windows a collection still fell into, beside the latencies.
 */
export function clientCollections(): ClientCollections {
  const gc = exposedGc();
  const pauses: Window[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    collectYoung: () => gc({ type: 'minor' }),
    async overlapping(windows) {
      await new Promise((resolve) => setTimeout(resolve, 20)); // the observer is told after the collection
      return windows.filter(([start, end]) => pauses.some(([from, to]) => from < end && to > start)).length;
    },
    stop: () => observer.disconnect(),
  };
}
