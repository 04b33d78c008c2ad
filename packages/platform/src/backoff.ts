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

export function createBackoff(options: BackoffOptions = {}): Backoff {
  const minMs = options.minMs ?? BACKOFF_DEFAULTS.minMs;
  const maxMs = Math.max(options.maxMs ?? BACKOFF_DEFAULTS.maxMs, minMs);
  const factor = options.factor ?? BACKOFF_DEFAULTS.factor;
  const jitter = Math.min(Math.max(options.jitter ?? BACKOFF_DEFAULTS.jitter, 0), 1);
  const random = options.random ?? Math.random;
  let attempts = 0;
  const backoff: Backoff = {
    get attempts() {
      return attempts;
    },
    nextDelayMs() {
      const base = Math.min(maxMs, minMs * factor ** Math.min(attempts, 64));
      attempts += 1;
      return Math.round(base * (1 - jitter * random()));
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
