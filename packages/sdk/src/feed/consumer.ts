import { unwrap, type CatalogClient } from '../client.js';
import { isTransient } from '../errors.js';
import { backoffDelay } from '../http/retry.js';
import { sleep } from '../sleep.js';
import type { EventsPage, FeedEvent } from '../types.js';
import { cursorKey, type CursorState, type CursorStore } from './cursor-store.js';
import { FeedPacer } from './feed-pacer.js';
import { RecentIds } from './recent-ids.js';

/** Part 8 of the interface: the feed is polled once every five seconds or slower. */
export const MIN_POLL_INTERVAL_MS = 5_000;
/** Part 8: 60 feed requests a minute per key; pages of a backlog are asked for no faster. */
export const MIN_PAGE_INTERVAL_MS = 1_000;
/** The longest a feed request may be held by the server for an event (`wait`, decision 0159). */
export const MAX_WAIT_SECONDS = 30;
const DEFAULT_WAIT_SECONDS = 20;
const MAX_ERROR_DELAY_MS = 60_000;

export interface FeedConsumerOptions {
  client: CatalogClient;
  /** The consumer's name: with the types filter, the key of its cursor in the store. */
  name: string;
  store: CursorStore;
  /** Event types to receive (rule 8: one cursor per filter); all when absent. */
  types?: readonly string[];
  /** Events per page, 1 to 500 (default 100). */
  limit?: number;
  /**
   * Once caught up, each request asks the server to hold it up to this many seconds until an event
   * comes (a long poll, 0 to 30, default 20): a change arrives within a moment, and a request is
   * sent at most every `pageIntervalMs`. 0: poll every `pollIntervalMs` instead.
   */
  waitSeconds?: number;
  /** Without a long poll (`waitSeconds: 0`), the wait between polls once caught up, at least (and by default) 5000 ms. */
  pollIntervalMs?: number;
  /** Wait between the pages of a backlog (`hasMore`), at least (and by default) 1000 ms. */
  pageIntervalMs?: number;
  /** How many recent event ids are remembered (and stored) to drop repeats (default 1000). */
  dedupeWindow?: number;
  /** Ends the iteration; the page being processed is still committed when the loop asks for the next. */
  signal?: AbortSignal;
  /** Ends the iteration once a page says there is no more (instead of polling on). */
  stopWhenCaughtUp?: boolean;
  /** Called once a page's cursor is saved. */
  onCommit?: (state: CursorState, key: string) => void | Promise<void>;
  /** Called when a transient failure (429, 503, 504, no answer) is waited out before asking again. */
  onRetry?: (error: unknown, delayMs: number) => void;
}

/** A page as the consumer yields it: new events only (repeats dropped) and the state saved once it is processed. */
export interface FeedPage {
  events: FeedEvent[];
  hasMore: boolean;
  /** The store key (name and filter). */
  key: string;
  /** What is saved when the loop asks for the next page (save it yourself inside a transaction to commit together). */
  state: CursorState;
}

interface Settings {
  limit: number;
  waitSeconds: number;
  pollIntervalMs: number;
  pageIntervalMs: number;
  dedupeWindow: number;
}

function settingsOf(options: FeedConsumerOptions): Settings {
  const { limit = 100, pollIntervalMs = MIN_POLL_INTERVAL_MS, pageIntervalMs = MIN_PAGE_INTERVAL_MS, dedupeWindow = 1000 } = options;
  const { waitSeconds = DEFAULT_WAIT_SECONDS } = options;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new RangeError('limit must be an integer from 1 to 500 (part 6)');
  if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > MAX_WAIT_SECONDS)
    throw new RangeError(`waitSeconds must be an integer from 0 to ${MAX_WAIT_SECONDS}`);
  if (!(pollIntervalMs >= MIN_POLL_INTERVAL_MS)) {
    throw new RangeError(
      `pollIntervalMs must be at least ${MIN_POLL_INTERVAL_MS}: the feed is polled every five seconds or slower (part 8)`,
    );
  }
  if (!(pageIntervalMs >= MIN_PAGE_INTERVAL_MS)) {
    throw new RangeError(`pageIntervalMs must be at least ${MIN_PAGE_INTERVAL_MS}: 60 feed requests a minute per key (part 8)`);
  }
  if (!Number.isInteger(dedupeWindow) || dedupeWindow < 1) throw new RangeError('dedupeWindow must be a positive integer');
  return { limit, waitSeconds, pollIntervalMs, pageIntervalMs, dedupeWindow };
}

/** Resolves true after `until` (epoch ms), false at once or as soon as `signal` aborts. */
async function pause(until: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return false;
  try {
    await sleep(Math.max(0, until - Date.now()), signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * One page after `cursor`. A transient failure is waited out (its Retry-After, else a growing
 * delay of at least the poll interval) and the same cursor asked again (rule 7: that is safe);
 * anything else is thrown. Null once `signal` aborts. Each attempt is one request (the client's own
 * retries are off here), and its end is noted by `pacer`.
 */
async function fetchPage(
  options: FeedConsumerOptions,
  settings: Settings,
  pacer: FeedPacer,
  cursor: string | null,
  wait: number,
): Promise<EventsPage | null> {
  const query = {
    limit: settings.limit,
    ...(options.types?.length ? { types: options.types.join(',') } : {}),
    ...(cursor ? { after: cursor } : {}),
    ...(wait > 0 ? { wait } : {}),
  };
  for (let attempt = 1; ; attempt++) {
    try {
      // Sent once: a retry inside the client would be a request the pacer never saw (0184).
      const call = options.client.api.GET('/api/v1/catalog/events', {
        params: { query },
        signal: options.signal,
        fetch: options.client.fetchOnce,
      });
      return await unwrap(call);
    } catch (error) {
      if (options.signal?.aborted) return null;
      if (!isTransient(error)) throw error;
      pacer.ended(Date.now());
      const backoff = backoffDelay({ baseDelayMs: settings.pollIntervalMs, maxDelayMs: MAX_ERROR_DELAY_MS }, attempt);
      const delay = Math.max(error.retryAfterMs ?? 0, settings.pollIntervalMs, backoff);
      options.onRetry?.(error, delay);
      if (!(await pause(pacer.nextStart(Date.now(), delay), options.signal))) return null;
    }
  }
}

/**
 * The feed as pages, with the rules of part 6 built in: the cursor is saved only once the page is
 * processed (when the loop asks for the next page; a `break` or a throw saves nothing, so the
 * page comes again), kept on an empty page, one per types filter; repeats dropped by id; once
 * caught up, long polls (`waitSeconds`) sent no faster than one a second, or polls no faster than
 * every five seconds; never more than the feed's limit in any minute as the gateway counts it,
 * whatever the latency (`FeedPacer`); resumes from the store after a restart.
 */
export async function* consumeEventPages(options: FeedConsumerOptions): AsyncGenerator<FeedPage, void, undefined> {
  const settings = settingsOf(options);
  const key = cursorKey(options.name, options.types);
  const saved = await options.store.load(key);
  const recent = new RecentIds(saved?.recentIds ?? [], settings.dedupeWindow);
  let cursor = saved?.cursor ?? null;
  const pacer = new FeedPacer();
  let next = 0;
  // The first request learns where the feed stands at once; once caught up, each one is a long poll.
  let caughtUp = false;
  const longPoll = settings.waitSeconds > 0 && !options.stopWhenCaughtUp;
  while (await pause(next, options.signal)) {
    const requestedAt = Date.now();
    const page = await fetchPage(options, settings, pacer, cursor, longPoll && caughtUp ? settings.waitSeconds : 0);
    if (page === null) return;
    pacer.ended(Date.now());
    caughtUp = !page.hasMore;
    next = pacer.nextStart(requestedAt, page.hasMore || longPoll ? settings.pageIntervalMs : settings.pollIntervalMs);
    // Rule 5: an empty page has no cursor; the previous one is kept.
    if (page.nextCursor !== null) {
      const events = page.events.filter((event) => recent.add(event.id));
      const state: CursorState = { cursor: page.nextCursor, recentIds: recent.list() };
      if (events.length > 0) yield { events, hasMore: page.hasMore, key, state };
      await options.store.save(key, state);
      cursor = page.nextCursor;
      await options.onCommit?.(state, key);
    }
    if (!page.hasMore && options.stopWhenCaughtUp) return;
  }
}

/** The feed event by event (see `consumeEventPages`): a page is saved once its last event is processed. */
export async function* consumeEvents(options: FeedConsumerOptions): AsyncGenerator<FeedEvent, void, undefined> {
  for await (const page of consumeEventPages(options)) yield* page.events;
}
