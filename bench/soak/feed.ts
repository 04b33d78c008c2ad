import { consumeEventPages, createCatalogClient, memoryCursorStore, type FeedEvent, type Fetch } from '@catalog/sdk';
import { percentile } from './latency.js';

/**
 * What the soak's writes must produce in the feed, and what the stations' feed consumers (the
 * SDK's, one per station) saw. Each acknowledged write expects one event, keyed by type and the
 * resource it is about; each import job expects one `entity.created` per row it created. The
 * consumers count every event by that key, so a write seen twice or never shows, and time
 * from a write's acknowledgement to the moment its event reached a consumer (feed visibility).
 */
export interface FeedLedger {
  /** An acknowledged write whose event is `type` about `resource` (an id; an assignment's entity id). */
  expect(type: string, resource: string): void;
  expectImport(jobId: string, created: number): void;
  startConsumers(stations: ReadonlyArray<{ key: string }>, baseUrl: string, fetch: Fetch, signal: AbortSignal): Promise<void>;
  /** Feed visibility of the events first seen this minute: p50/p99 and how many; then starts the next minute. */
  closeMinute(): { count: number; p50Ms: number; p99Ms: number };
  /** Waits until every expected event has been seen, or `timeoutMs`. */
  untilComplete(timeoutMs: number): Promise<void>;
  summary(): FeedSummary;
}

export interface FeedSummary {
  acknowledgedWrites: number;
  seenOnce: number;
  missing: number;
  duplicated: number;
  /** A few keys of missing or duplicated writes, to look them up. */
  examples: { missing: string[]; duplicated: string[] };
  imports: Array<{ jobId: string; created: number; entityCreatedEvents: number }>;
  eventsConsumed: number;
}

/** An assignment's events are about the assignment's own id, which its answer does not carry: they are keyed by its entity. */
function eventKey(event: FeedEvent): string {
  const resource = event.resourceKind === 'assignment' ? String(event.data.entityId) : String(event.resourceId);
  return `${event.type} ${resource}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function feedLedger(): FeedLedger {
  const expected = new Map<string, number>(); // key → when acknowledged (performance.now())
  const seen = new Map<string, number>();
  const imports = new Map<string, number>(); // job id → entities it created
  let visibility: number[] = [];
  let consumed = 0;

  // Every event is counted, expected or not yet: under load a write's event can reach a consumer
  // before the write's answer reaches the writer (its visibility is then 0, see `expect`), and an
  // import's events before the job is seen to succeed.
  const entityCreatedByBatch = new Map<string, number>();
  const observe = (event: FeedEvent, at: number): void => {
    consumed += 1;
    const key = eventKey(event);
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    if (count === 1 && expected.has(key)) visibility.push(at - expected.get(key)!);
    if (event.type === 'entity.created') entityCreatedByBatch.set(event.batchId, (entityCreatedByBatch.get(event.batchId) ?? 0) + 1);
  };

  const consume = async (key: string, baseUrl: string, fetch: Fetch, signal: AbortSignal): Promise<void> => {
    const client = createCatalogClient({ baseUrl, apiKey: key, fetch });
    // The consumer retries what is transient itself; anything else ends this loop, so it starts over
    // from its cursor (kept in the store) after a pause, as a station's consumer process would.
    const store = memoryCursorStore();
    while (!signal.aborted) {
      try {
        for await (const page of consumeEventPages({ client, name: 'soak', store, limit: 500, signal })) {
          const at = performance.now();
          for (const event of page.events) observe(event, at);
        }
      } catch {
        await sleep(1_000);
      }
    }
  };

  return {
    expect(type, resource) {
      const key = `${type} ${resource}`;
      expected.set(key, performance.now());
      if (seen.has(key)) visibility.push(0);
    },
    expectImport(jobId, created) {
      imports.set(jobId, created);
    },
    async startConsumers(stations, baseUrl, fetch, signal) {
      await Promise.all(stations.map((station) => consume(station.key, baseUrl, fetch, signal)));
    },
    closeMinute() {
      const sorted = visibility.sort((a, b) => a - b);
      visibility = [];
      return { count: sorted.length, p50Ms: Math.round(percentile(sorted, 0.5)), p99Ms: Math.round(percentile(sorted, 0.99)) };
    },
    async untilComplete(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const complete = () =>
        [...expected.keys()].every((key) => seen.has(key)) &&
        [...imports].every(([jobId, created]) => (entityCreatedByBatch.get(jobId) ?? 0) >= created);
      while (!complete() && Date.now() < deadline) await sleep(1_000);
    },
    summary() {
      const missing = [...expected.keys()].filter((key) => !seen.has(key));
      const duplicated = [...expected.keys()].filter((key) => (seen.get(key) ?? 0) > 1);
      return {
        acknowledgedWrites: expected.size,
        seenOnce: expected.size - missing.length - duplicated.length,
        missing: missing.length,
        duplicated: duplicated.length,
        examples: { missing: missing.slice(0, 5), duplicated: duplicated.slice(0, 5) },
        imports: [...imports].map(([jobId, created]) => ({ jobId, created, entityCreatedEvents: entityCreatedByBatch.get(jobId) ?? 0 })),
        eventsConsumed: consumed,
      };
    },
  };
}
