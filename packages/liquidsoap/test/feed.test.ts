import type { FeedEvent } from '@catalog/sdk';
import { songOfEvent } from '../src/feed.js';

const ours = '11111111-1111-4111-8111-111111111111';
const other = '22222222-2222-4222-8222-222222222222';
const song = '33333333-3333-4333-8333-333333333333';
const playing = new Set([song]);
const relevance = { integrationId: ours, isAssigned: (id: string) => playing.has(id) };

const event = (type: string, data: Record<string, unknown>, resourceId: string | null = null): FeedEvent => ({
  id: '44444444-4444-4444-8444-444444444444',
  type,
  occurredAt: '2026-01-01T00:00:00.000Z',
  product: 'catalog',
  resourceKind: type.split('.')[0]!,
  resourceId,
  dmrn: null,
  sourceSystem: 'catalog',
  batchId: '55555555-5555-4555-8555-555555555555',
  schemaVersion: 1,
  data,
});

test('assignments of this integration concern it; its own synced and failed reports do not, a pending one does', () => {
  expect(songOfEvent(event('assignment.created', { integrationId: ours, entityId: song }), relevance)).toBe(song);
  expect(songOfEvent(event('assignment.deleted', { integrationId: ours, entityId: song, reason: 'unassigned' }), relevance)).toBe(song);
  expect(songOfEvent(event('assignment.created', { integrationId: other, entityId: song }), relevance)).toBeNull();
  const changed = (state: string) => event('assignment.sync_state_changed', { integrationId: ours, entityId: song, state });
  expect(songOfEvent(changed('pending'), relevance)).toBe(song);
  expect(songOfEvent(changed('synced'), relevance)).toBeNull();
  expect(songOfEvent(changed('failed'), relevance)).toBeNull();
});

test('markers, a loudness or cue_points result and a retitle matter for a song on the playlist only', () => {
  expect(songOfEvent(event('markers.updated', { entityId: song, count: 2, types: ['cue_in'] }), relevance)).toBe(song);
  expect(songOfEvent(event('analysis.succeeded', { entityId: song, type: 'loudness' }), relevance)).toBe(song);
  expect(songOfEvent(event('analysis.succeeded', { entityId: song, type: 'tempo' }), relevance)).toBeNull();
  expect(songOfEvent(event('entity.updated', { changedFields: ['title'] }, song), relevance)).toBe(song);
  expect(songOfEvent(event('entity.updated', { changedFields: ['title'] }, other), relevance)).toBeNull();
});
