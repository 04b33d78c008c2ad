import { FEED_REQUESTS_PER_WINDOW, FEED_WINDOW_MS, FeedPacer } from '../src/feed/feed-pacer.js';

/**
 * The feed consumer's pacing against the gateway's limit as decision 0033 counts it: a request is
 * admitted at some moment between its start and its answer, and refused when 60 admissions
 * already lie within the 60 s before that moment (the boundary counted, the stricter reading).
 */
function limitRefusals(requests: Array<{ admittedAt: number }>): number {
  const admitted: number[] = [];
  let refused = 0;
  for (const { admittedAt } of requests) {
    const inWindow = admitted.filter((at) => at >= admittedAt - FEED_WINDOW_MS).length;
    if (inWindow >= FEED_REQUESTS_PER_WINDOW) refused += 1;
    else admitted.push(admittedAt);
  }
  return refused;
}

/** A consumer's requests, each started as soon as `nextStart` allows, taking `latency(i)` ms, admitted `admission(i)` of the way through. */
function run(
  count: number,
  latency: (i: number) => number,
  admission: (i: number) => number,
  nextStart: (pacer: FeedPacer, previousStart: number) => number,
) {
  const pacer = new FeedPacer();
  const requests: Array<{ startedAt: number; admittedAt: number }> = [];
  let start = 0;
  for (let i = 0; i < count; i += 1) {
    const took = latency(i);
    requests.push({ startedAt: start, admittedAt: start + took * admission(i) });
    pacer.ended(start + took);
    start = Math.max(start + took, nextStart(pacer, start));
  }
  return requests;
}

const paced = (pacer: FeedPacer, previousStart: number) => pacer.nextStart(previousStart, 1_000);
const oneASecond = (_pacer: FeedPacer, previousStart: number) => previousStart + 1_000;

test('one slow answer, then fast ones: a second apart the 61st request lands within 60 s of the first admission; the pacer waits for it', () => {
  const latency = (i: number) => (i === 0 ? 900 : 10);
  const admission = (i: number) => (i === 0 ? 0.99 : 0);
  expect(limitRefusals(run(61, latency, admission, oneASecond))).toBe(1);
  const requests = run(61, latency, admission, paced);
  expect(limitRefusals(requests)).toBe(0);
  expect(requests[60]!.startedAt).toBeGreaterThan(900 + FEED_WINDOW_MS);
});

test('latencies that vary at random are never refused, and the pace stays close to the limit', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const latencies = Array.from({ length: 2_000 }, () => (random() < 0.05 ? 300 + random() * 2_000 : random() * 40));
  const admissions = Array.from({ length: 2_000 }, () => random());
  const requests = run(
    2_000,
    (i) => latencies[i]!,
    (i) => admissions[i]!,
    paced,
  );
  expect(limitRefusals(requests)).toBe(0);
  expect(
    limitRefusals(
      run(
        2_000,
        (i) => latencies[i]!,
        (i) => admissions[i]!,
        oneASecond,
      ),
    ),
  ).toBeGreaterThan(0);
  // The pace it keeps: close to the limit, not far under it.
  const span = requests.at(-1)!.startedAt - requests[0]!.startedAt;
  expect(2_000 / (span / FEED_WINDOW_MS)).toBeGreaterThan(55);
});
