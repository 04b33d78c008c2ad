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
