import { readConfig } from '@catalog/platform';
import { eventsConfig } from '../src/config.js';

const BASE = { DATABASE_URL: 'postgres://events_app@db/catalog', CALL_CONTEXT_SECRET: 'events-config-test-call-context-secret' };

test('the feed cursor secret is required in production, a development key elsewhere, at least 32 characters', () => {
  expect(() => readConfig(eventsConfig, { ...BASE, NODE_ENV: 'production' })).toThrow(/FEED_CURSOR_SECRET is required but not set/);
  expect(readConfig(eventsConfig, BASE).feedCursorSecret).toHaveLength(35);
  expect(() => readConfig(eventsConfig, { ...BASE, FEED_CURSOR_SECRET: 'too-short' })).toThrow(
    /FEED_CURSOR_SECRET must be at least 32 characters/,
  );
  const secret = 'events-config-test-feed-cursor-secret';
  expect(readConfig(eventsConfig, { ...BASE, NODE_ENV: 'production', FEED_CURSOR_SECRET: secret }).feedCursorSecret).toBe(secret);
});

test('the feed retention is 35 days by default and never shorter than the 30-day replay window', () => {
  expect(readConfig(eventsConfig, BASE).feedPruner).toEqual({ retentionDays: 35, intervalMs: 60_000, batchSize: 10_000 });
  expect(readConfig(eventsConfig, { ...BASE, FEED_RETENTION_DAYS: '30' }).feedPruner.retentionDays).toBe(30);
  expect(() => readConfig(eventsConfig, { ...BASE, FEED_RETENTION_DAYS: '29' })).toThrow(
    /FEED_RETENTION_DAYS must be between 30 and 3650, got 29/,
  );
});
