import { busyTenants } from '../src/consumers/express-lane.js';

/** The express path's measure of a busy tenant (decision 0150): its events counted per window. */
test('a tenant is busy past its events of the window, and quiet again in the next window; others are counted apart', () => {
  let now = 0;
  const busy = busyTenants({ windowMs: 10_000, maxEvents: 3 }, () => now);
  expect([1, 2, 3, 4].map(() => busy.count('a'))).toEqual([false, false, false, true]);
  expect(busy.count('b')).toBe(false);
  now = 10_000;
  expect(busy.count('a')).toBe(false);
});
