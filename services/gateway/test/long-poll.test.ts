import { operationById, type RouteDefinition } from '@catalog/contracts';
import { answerTimeoutMs } from '../src/http/long-poll.js';

const feed = operationById('listEvents') as RouteDefinition;
const entities = operationById('listEntities') as RouteDefinition;

test("a long poll's answer is waited for its wait longer than the RPC timeout, never past the ceiling", () => {
  expect(answerTimeoutMs(feed, { wait: '20' }, 10_000, 59_000)).toBe(30_000);
  expect(answerTimeoutMs(feed, { wait: '30' }, 40_000, 59_000)).toBe(59_000);
  expect(answerTimeoutMs(feed, {}, 10_000, 59_000)).toBe(10_000);
});

test('a wait the service refuses (too long, not whole seconds) or a route without a long poll adds nothing', () => {
  for (const wait of ['31', '1.5', '-1', 'soon', '0'])
    expect([wait, answerTimeoutMs(feed, { wait }, 10_000, 59_000)]).toEqual([wait, 10_000]);
  expect(answerTimeoutMs(entities, { wait: '20' }, 10_000, 59_000)).toBe(10_000);
});
