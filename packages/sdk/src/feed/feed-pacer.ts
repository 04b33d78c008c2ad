/** Part 8: 60 feed requests a minute per key, which the gateway counts as "at most 60 in any 60 s" (decision 0033). */
export const FEED_REQUESTS_PER_WINDOW = 60;
export const FEED_WINDOW_MS = 60_000;

/**
 * Keeps a consumer's requests inside the feed's limit whatever their latency. The gateway admits
 * a request at some moment between its start and its answer, and refuses one that would make 61
 * admissions within 60 s. Starting requests a page interval (one second) apart is not enough: a
 * request answered slowly, then 60 answered fast, puts 61 admissions into less than 60 s (a busy
 * station's consumer got a 429, and waited five seconds, about once a minute in the soak).
 * So a request also starts no sooner than a whole window after the answer to the request 60
 * before it: then the gateway has admitted that one more than 60 s before this one.
 */
export class FeedPacer {
  private readonly answeredAt: number[] = [];

  constructor(
    private readonly requestsPerWindow = FEED_REQUESTS_PER_WINDOW,
    private readonly windowMs = FEED_WINDOW_MS,
  ) {}

  /** Notes that a request (any attempt, answered or failed: the gateway may have admitted it) ended at `at`. */
  ended(at: number): void {
    this.answeredAt.push(at);
    if (this.answeredAt.length > this.requestsPerWindow) this.answeredAt.shift();
  }

  /** The earliest moment (epoch ms) the next request may start, `intervalMs` after the previous start at the soonest. */
  nextStart(previousStart: number, intervalMs: number): number {
    const windowFree = this.answeredAt.length < this.requestsPerWindow ? 0 : this.answeredAt[0]! + this.windowMs + 1;
    return Math.max(previousStart + intervalMs, windowFree);
  }
}
