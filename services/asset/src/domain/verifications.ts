/**
 * The verifications of uploads running in this process, one per upload: a confirmation starts
 * the verification of its upload or joins the one already running, and waits for it a bounded
 * time. The verification goes on when the wait ends (or the caller is gone), so a confirmation
 * repeated after a timeout finds its work done or under way, never begun twice (decision 0148).
 */
export interface Verifications<T> {
  /**
   * The outcome of the verification of `key` (started with `verify` unless one is running), or
   * `null` when it has not ended within `waitMs`; its failure is each waiting caller's.
   */
  join(key: string, verify: () => Promise<T>, waitMs: number): Promise<T | null>;
  /** Resolves once every running verification has ended (the service's stop). */
  settled(): Promise<void>;
}

export function verifications<T>(onLateFailure: (key: string, error: unknown) => void): Verifications<T> {
  const running = new Map<string, Promise<T>>();
  return {
    async join(key, verify, waitMs) {
      let work = running.get(key);
      if (!work) {
        const started = verify().finally(() => running.delete(key));
        running.set(key, started);
        // Nobody may be waiting any more when it fails: its failure is logged, the next confirmation starts anew.
        started.catch((error: unknown) => onLateFailure(key, error));
        work = started;
      }
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), waitMs);
      });
      try {
        return await Promise.race([work, waited]);
      } finally {
        clearTimeout(timer);
      }
    },
    async settled() {
      await Promise.allSettled([...running.values()]);
    },
  };
}
