import {
  backoffDelay,
  createBackoff,
  createHttpApp,
  createMetricsRegistry,
  listen,
  platformCounter,
  processMetrics,
} from '@catalog/platform';
import { testLogger } from '@catalog/testing';

describe('createBackoff: the one retry pacing of the platform', () => {
  test('doubles from minMs up to the cap; reset starts again', () => {
    const backoff = createBackoff({ minMs: 100, maxMs: 1_000, jitter: 0 });
    expect([1, 2, 3, 4, 5, 6].map(() => backoff.nextDelayMs())).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoff.attempts).toBe(6);
    backoff.reset();
    expect(backoff.attempts).toBe(0);
    expect(backoff.nextDelayMs()).toBe(100);
  });

  test('jitter takes a random share off each wait, never more than its share and never above the cap', () => {
    const lowest = createBackoff({ minMs: 100, maxMs: 1_000, jitter: 0.5, random: () => 0.999999 });
    const highest = createBackoff({ minMs: 100, maxMs: 1_000, jitter: 0.5, random: () => 0 });
    expect([1, 2, 3, 4, 5].map(() => lowest.nextDelayMs())).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map(() => highest.nextDelayMs())).toEqual([100, 200, 400, 800, 1_000]);
    const real = createBackoff({ minMs: 100, maxMs: 5_000 });
    for (let i = 0; i < 50; i += 1) {
      const delay = real.nextDelayMs();
      expect(delay).toBeGreaterThanOrEqual(50);
      expect(delay).toBeLessThanOrEqual(5_000);
    }
  });

  test('wait ends early when its signal aborts', async () => {
    const backoff = createBackoff({ minMs: 60_000, maxMs: 60_000 });
    const stop = new AbortController();
    const waiting = backoff.wait(stop.signal);
    stop.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  test('backoffDelay: the wait after the n-th failure in a row, for retries whose count lives elsewhere (a row, a delivery)', () => {
    const options = { minMs: 100, maxMs: 1_000, jitter: 0 };
    expect([0, 1, 2, 3, 4, 5, 100].map((attempt) => backoffDelay(options, attempt))).toEqual([100, 100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffDelay({ minMs: 100, maxMs: 1_000, jitter: 0.5, random: () => 0.999999 }, 3)).toBe(200);
    expect(backoffDelay({ minMs: 10, factor: 3, jitter: 0 }, 3)).toBe(90);
  });
});

describe('metrics', () => {
  test('counters render in the Prometheus text format, one series per set of labels, values escaped', () => {
    const registry = createMetricsRegistry();
    const parked = registry.counter('catalog_test_total', 'Things counted');
    parked.inc({ consumer: 'events-feed', reason: 'rejected' });
    parked.inc({ reason: 'rejected', consumer: 'events-feed' }, 2);
    parked.inc({ consumer: 'odd "name"\\\n', reason: 'malformed' });
    expect(registry.counter('catalog_test_total', 'ignored')).toBe(parked);
    expect(parked.value({ consumer: 'events-feed', reason: 'rejected' })).toBe(3);
    expect(registry.render()).toBe(
      [
        '# HELP catalog_test_total Things counted',
        '# TYPE catalog_test_total counter',
        'catalog_test_total{consumer="events-feed",reason="rejected"} 3',
        'catalog_test_total{consumer="odd \\"name\\"\\\\\\n",reason="malformed"} 1',
        '',
      ].join('\n'),
    );
    expect(() => parked.inc({}, -1)).toThrow();
    expect(() => registry.counter('not a name', 'x')).toThrow();
  });

  test('a listener given a registry serves it at /metrics', async () => {
    platformCounter(processMetrics, 'deadLetters').inc({ consumer: 'metrics-test', reason: 'malformed' });
    const server = await listen(
      createHttpApp({ logger: testLogger(), ready: async () => undefined, metrics: processMetrics }),
      0,
      '127.0.0.1',
    );
    const bare = await listen(createHttpApp({ logger: testLogger(), ready: async () => undefined }), 0, '127.0.0.1');
    try {
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await response.text();
      expect(text).toContain('# TYPE catalog_dead_letters_total counter');
      expect(text).toContain('catalog_dead_letters_total{consumer="metrics-test",reason="malformed"} 1');
      expect((await fetch(`${bare.url}/metrics`)).status).toBe(404);
    } finally {
      await server.close(1_000);
      await bare.close(1_000);
    }
  });
});
