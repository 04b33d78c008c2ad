/**
 * Request latencies of the soak by class and minute: every answer's duration is kept for the minute
 * it ended in, and each minute closes into p50/p99 per class; failures are counted by class and
 * what came back (a status, or the error of a request that got no answer).
 */
export interface ClassMinute {
  count: number;
  p50Ms: number;
  p99Ms: number;
  failures: Record<string, number>;
}

export interface LatencyBook {
  /** Records one request of `requestClass` that took `ms` and succeeded. */
  ok(requestClass: string, ms: number): void;
  /** Records one request that failed (no 2xx answer): `what` is its status or error name. */
  failed(requestClass: string, what: string): void;
  /** Closes the current minute: its figures per class, and starts the next. */
  closeMinute(): Record<string, ClassMinute>;
}

export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

const round = (ms: number): number => Math.round(ms * 10) / 10;

export function latencyBook(): LatencyBook {
  let durations = new Map<string, number[]>();
  let failures = new Map<string, Record<string, number>>();
  return {
    ok(requestClass, ms) {
      const list = durations.get(requestClass) ?? [];
      list.push(ms);
      durations.set(requestClass, list);
    },
    failed(requestClass, what) {
      const counts = failures.get(requestClass) ?? {};
      counts[what] = (counts[what] ?? 0) + 1;
      failures.set(requestClass, counts);
    },
    closeMinute() {
      const minute: Record<string, ClassMinute> = {};
      for (const name of new Set([...durations.keys(), ...failures.keys()])) {
        const sorted = (durations.get(name) ?? []).sort((a, b) => a - b);
        minute[name] = {
          count: sorted.length,
          p50Ms: round(percentile(sorted, 0.5)),
          p99Ms: round(percentile(sorted, 0.99)),
          failures: failures.get(name) ?? {},
        };
      }
      durations = new Map();
      failures = new Map();
      return minute;
    },
  };
}

/**
 * Runs `request`, timing it into `book` under `requestClass`: its result, or undefined when it
 * threw (the failure recorded by its `status` if it has one, else by its name).
 */
export async function timed<T>(book: LatencyBook, requestClass: string, request: () => Promise<T>): Promise<T | undefined> {
  const started = performance.now();
  try {
    const result = await request();
    book.ok(requestClass, performance.now() - started);
    return result;
  } catch (error) {
    const status = (error as { status?: number }).status;
    book.failed(requestClass, status ? String(status) : (error as Error).name || 'Error');
    return undefined;
  }
}

/** The feed consumers' request classes: catch-up pages, and long polls (`wait`), whose time is a wait by design. */
export const FEED_CLASSES = { page: 'feed.page', longPoll: 'feed.longPoll' } as const;

/**
 * The stations' feed consumers' fetch, timed (decision 0183): one request for each call, its
 * answer handed to the SDK as it came (a 503 or 429 too, which the SDK waits out), and a failure
 * to answer thrown as it came. A long poll (`wait` in its query) is timed as `feed.longPoll`: how
 * long it takes is how long the station went without a new event (the events service reads the
 * page again every 250 ms), which feed visibility measures; other pages are `feed.page`.
 */
export function timedFeedFetch(book: LatencyBook, fetchOnce: typeof fetch = fetch): (request: Request) => Promise<Response> {
  return async (request) => {
    const requestClass = new URL(request.url).searchParams.has('wait') ? FEED_CLASSES.longPoll : FEED_CLASSES.page;
    let answer: Response | undefined;
    let failure: unknown;
    await timed(book, requestClass, async () => {
      try {
        answer = await fetchOnce(request);
      } catch (error) {
        failure = error;
        throw error;
      }
      if (!answer.ok) throw Object.assign(new Error(`feed ${answer.status}`), { status: answer.status });
    });
    if (answer) return answer;
    throw failure;
  };
}
