import { latencyBook, timedFeedFetch, type ClassMinute } from '../../bench/soak/latency.js';
import { evaluateTargets, type MinuteRecord } from '../../bench/soak/targets.js';

const page = (query: string) => new Request(`http://127.0.0.1:9/api/v1/catalog/events?limit=500${query}`);

describe("the soak's timed feed fetch (decision 0183)", () => {
  it('sends one request for a failed page and hands its answer to the SDK as it came', async () => {
    const book = latencyBook();
    let sent = 0;
    const fetchOnce = async () => {
      sent += 1;
      return new Response('{"error":{"code":"unavailable"}}', { status: 503 });
    };
    const answer = await timedFeedFetch(book, fetchOnce)(page('&after=abc'));
    expect(answer.status).toBe(503);
    expect(sent).toBe(1);
    expect(book.closeMinute()['feed.page']?.failures).toEqual({ '503': 1 });
  });

  it('throws a failure to answer as it came, counted once', async () => {
    const book = latencyBook();
    const refused = new TypeError('fetch failed');
    await expect(
      timedFeedFetch(book, async () => {
        throw refused;
      })(page('')),
    ).rejects.toBe(refused);
    expect(book.closeMinute()['feed.page']?.failures).toEqual({ TypeError: 1 });
  });

  it('times a long poll as feed.longPoll and a page as feed.page', async () => {
    const book = latencyBook();
    const fetchOnce = async () => Response.json({ events: [], nextCursor: null, hasMore: false });
    await timedFeedFetch(book, fetchOnce)(page('&wait=20'));
    await timedFeedFetch(book, fetchOnce)(page(''));
    const minute = book.closeMinute();
    expect(minute['feed.longPoll']?.count).toBe(1);
    expect(minute['feed.page']?.count).toBe(1);
  });
});

describe("the soak's p99 target", () => {
  const figures = (p99Ms: number): ClassMinute => ({ count: 100, p50Ms: p99Ms / 2, p99Ms, failures: {} });
  const minutes: MinuteRecord[] = Array.from({ length: 12 }, (_, minute) => ({
    minute,
    loadAverage: [1],
    processes: {},
    // Minute 11: both classes at ten times their first-sixth p99.
    requests: { 'feed.page': figures(minute === 11 ? 200 : 20), 'feed.longPoll': figures(minute === 11 ? 2_500 : 250) },
  }));

  it('holds pages to twice their first p99, and leaves long polls (a wait by design) out', () => {
    const result = evaluateTargets({
      minutes,
      baselineP99Ms: { 'feed.page': 20, 'feed.longPoll': 250 },
      oomKills: 0,
      feed: { missing: 0, duplicated: 0, importsShort: 0 },
      libraryCaughtUpMs: 0,
      kills: [],
    });
    expect(result.p99Misses.map((miss) => `${miss.requestClass}@${miss.minute}`)).toEqual(['feed.page@11']);
  });
});
