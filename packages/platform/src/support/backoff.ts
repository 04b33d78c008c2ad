import { sleep } from './sleep.js';

/** How a `Backoff` grows its waits; every field has a default. */
export interface BackoffOptions {
  /** The first wait (before jitter). */
  minMs?: number;
  /** The longest wait: growth stops here. */
  maxMs?: number;
  /** Each wait is this many times the one before. */
  factor?: number;
  /**
   * Share of each wait that is random, 0 to 1: a wait of `d` becomes a value between
   * `d × (1 - jitter)` and `d`, so replicas that failed together do not retry together.
   */
  jitter?: number;
  /** Source of randomness in [0, 1) (tests pass a fixed one). */
  random?: () => number;
}

const BACKOFF_DEFAULTS = { minMs: 100, maxMs: 5_000, factor: 2, jitter: 0.5 } as const;

/**
 * Exponential backoff with jitter and a cap: the one retry pacing of the platform (outbox relay,
 * feed writer, event consumers). Stateful: each `nextDelayMs` (or `wait`) moves to the next step;
 * `reset` after a success starts again from the shortest wait.
 */
export interface Backoff {
  /** Failures since the last reset: how many waits were taken. */
  readonly attempts: number;
  /** The wait before the next attempt; counts an attempt. */
  nextDelayMs(): number;
  /** Waits `nextDelayMs()`, or less when `signal` aborts (never rejects). */
  wait(signal?: AbortSignal): Promise<void>;
  reset(): void;
}

/**
 * The wait after the `attempt`-th failure in a row (1: the first, `minMs`), growing by `factor` up
 * to `maxMs`, less its jitter. A function of its arguments alone (with `jitter: 0`, or a fixed
 * `random`): for retries whose count is kept elsewhere (a row, a message's deliveries), where a
 * stateful `Backoff` has nothing to hold on to.
 */
export function backoffDelay(options: BackoffOptions, attempt: number): number {
  const minMs = options.minMs ?? BACKOFF_DEFAULTS.minMs;
  const maxMs = Math.max(options.maxMs ?? BACKOFF_DEFAULTS.maxMs, minMs);
  const factor = options.factor ?? BACKOFF_DEFAULTS.factor;
  const jitter = Math.min(Math.max(options.jitter ?? BACKOFF_DEFAULTS.jitter, 0), 1);
  const base = Math.min(maxMs, minMs * factor ** Math.min(Math.max(attempt - 1, 0), 64));
  return Math.round(base * (1 - jitter * (jitter > 0 ? (options.random ?? Math.random)() : 0)));
}

export function createBackoff(options: BackoffOptions = {}): Backoff {
  let attempts = 0;
  const backoff: Backoff = {
    get attempts() {
      return attempts;
    },
    nextDelayMs() {
      attempts += 1;
      return backoffDelay(options, attempts);
    },
    wait(signal) {
      return sleep(backoff.nextDelayMs(), signal);
    },
    reset() {
      attempts = 0;
    },
  };
  return backoff;
}
