import { analysisFacts } from '../src/domain/analysis-facts.js';
import { changedTrackFields, NO_ANALYSIS, projectTrack } from '../src/domain/track.js';
import { audioVersion, testEntity } from './fixtures.js';

/** What a track is made of (decisions 0100, 0102). */
const entity = testEntity;
const version = (overrides: Parameters<typeof audioVersion>[0]) => audioVersion(overrides);

test('a track while the primary audio file is ONLINE (as its newest asset event says, else the catalog); why not otherwise', () => {
  expect(projectTrack(null, [], new Map())).toEqual({ removed: 'entity_deleted' });
  expect(projectTrack(entity, [version({ kind: 'ARTWORK' })], new Map())).toEqual({ removed: 'no_primary_audio' });
  expect(projectTrack(entity, [version({ isPrimary: false })], new Map())).toEqual({ removed: 'no_primary_audio' });
  expect(projectTrack(entity, [version({ status: 'PENDING_UPLOAD' })], new Map())).toEqual({ removed: 'audio_not_online' });
  const known = new Map([['01900000-0000-7000-8000-0000000000a1', { status: 'ONLINE', durationMs: 990 }]]);
  const outcome = projectTrack(entity, [version({ status: 'PENDING_UPLOAD', durationMs: null })], known);
  expect(outcome).toMatchObject({
    track: { summary: { durationMs: 990, updatedAt: '2026-01-03T00:00:00.000Z' }, columns: { titleSort: 'cafe' } },
  });
  const expired = new Map([['01900000-0000-7000-8000-0000000000a1', { status: 'EXPIRED', durationMs: 990 }]]);
  expect(projectTrack(entity, [version({})], expired)).toEqual({ removed: 'audio_not_online' });
});

test('changed fields name what differs, in the registry order', () => {
  const before = projectTrack(entity, [version({})], new Map());
  const after = projectTrack(
    { ...entity, title: 'New', artist: 'X' },
    [version({ markers: [{ type: 'cue_in', positionMs: 5 }] })],
    new Map(),
  );
  if (!('track' in before) || !('track' in after)) throw new Error('expected tracks');
  expect(changedTrackFields(before.track, before.track)).toEqual([]);
  expect(changedTrackFields(before.track, after.track)).toEqual(['title', 'artist', 'markers']);
});

test('analysis facts from the newest succeeded job of each type (the agreed summary shapes, decision 0113)', () => {
  const job = (type: string, summary: Record<string, unknown>) => ({
    jobId: `0190000${type.length}-0000-7000-8000-000000000000`,
    type,
    finishedAt: '2026-01-05T00:00:00.000Z',
    summary,
  });
  const facts = analysisFacts({
    tempo: job('tempo', { bpm: 124.5, confidence: 0.8, firstBeatMs: 120, firstDownbeatMs: 120, beatCount: 2 }),
    key: job('key', { key: 'A minor', tonic: 'A', mode: 'minor', camelot: '8A', strength: 0.7 }),
    loudness: job('loudness', {
      integratedLufs: -9.5,
      loudnessRangeLu: 4,
      truePeakDbtp: -0.3,
      samplePeakDbfs: -0.5,
      maxMomentaryLufs: -6,
      maxShortTermLufs: -7,
      gainDb: -13.5,
      targetLufs: -23,
    }),
    waveform: job('waveform', { version: 2, channels: 2, sample_rate: 44_100, samples_per_pixel: 44, bits: 16, length: 0 }),
  });
  expect(facts).toMatchObject({
    tempo: { bpm: 124.5, confidence: 0.8, firstBeatMs: 120, analyzedAt: '2026-01-05T00:00:00.000Z' },
    key: { key: 'A minor', camelot: '8A', strength: 0.7 },
    loudness: { integratedLufs: -9.5, truePeakDbtp: -0.3 },
    cuePoints: null,
    technical: null,
    waveform: { available: true },
  });
  expect(facts.tempo?.resultPath).toBe(`/api/v1/catalog/analyses/${facts.tempo?.jobId}`);
  const track = projectTrack(entity, [version({})], new Map(), facts);
  expect(track).toMatchObject({
    track: { summary: { bpm: 124.5, key: 'A minor', camelot: '8A', integratedLufs: -9.5, updatedAt: '2026-01-05T00:00:00.000Z' } },
  });
  expect(analysisFacts({})).toEqual(NO_ANALYSIS);
});
