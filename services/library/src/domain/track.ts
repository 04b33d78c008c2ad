import { isDeepStrictEqual } from 'node:util';
import type { Entity, TrackAnalysis, TrackField, TrackRemovalReason, TrackSummary, TrackVersion, Version } from '@catalog/contracts';
import type { KnownAsset, ProjectedTrack } from '../persistence/tracks.js';
import { foldText } from './text.js';

/** A file's facts and the stored track are the shapes persistence/ keeps; the projection makes them. */
export type { KnownAsset, ProjectedTrack };

export type TrackOutcome = { track: ProjectedTrack } | { removed: TrackRemovalReason };

/** No analysis facts yet (the analyses are read in by the projection once they exist). */
export const NO_ANALYSIS: TrackAnalysis = {
  tempo: null,
  key: null,
  loudness: null,
  cuePoints: null,
  waveform: { available: false, jobId: null, analyzedAt: null, resultPath: null },
  technical: null,
};

function trackVersion(version: Version, known: ReadonlyMap<string, KnownAsset>): TrackVersion {
  const asset = known.get(version.asset.id);
  return {
    id: version.id,
    label: version.label,
    versionType: version.versionType,
    durationMs: version.durationMs ?? asset?.durationMs ?? null,
    markers: version.markers,
    asset: {
      id: version.asset.id,
      status: (asset?.status ?? version.asset.status) as TrackVersion['asset']['status'],
      contentType: version.asset.contentType,
    },
    downloadPath: `/api/v1/catalog/assets/${version.asset.id}/download`,
  };
}

const newest = (dates: string[]): Date => new Date(Math.max(...dates.map((d) => Date.parse(d))));

/**
 * The track of an entity (decision 0102): it is one while the entity has a primary AUDIO version
 * whose file is ONLINE (the status its asset events gave, else the catalog's); else why it is not.
 * Every value comes from the catalog's state (and the analyses), so a rebuild makes the same track.
 */
export function projectTrack(
  entity: Entity | null,
  versions: Version[],
  known: ReadonlyMap<string, KnownAsset>,
  analysis: TrackAnalysis = NO_ANALYSIS,
): TrackOutcome {
  if (entity === null) return { removed: 'entity_deleted' };
  const primary = (kind: string): Version | undefined => versions.find((v) => v.kind === kind && v.isPrimary);
  const audio = primary('AUDIO');
  if (!audio) return { removed: 'no_primary_audio' };
  const audioVersion = trackVersion(audio, known);
  if (audioVersion.asset.status !== 'ONLINE') return { removed: 'audio_not_online' };
  const other = (kind: string): TrackVersion | null => {
    const version = primary(kind);
    return version ? trackVersion(version, known) : null;
  };
  const updatedAt = newest([entity.updatedAt, ...versions.map((v) => v.updatedAt), ...analysisTimes(analysis)]);
  const summary: TrackSummary = {
    entityId: entity.id,
    entityType: entity.type,
    title: entity.title,
    artist: entity.artist,
    externalReferences: { dmrn: entity.externalReferences.dmrn },
    audioVersion: { id: audio.id, label: audio.label, versionType: audio.versionType, assetId: audio.asset.id },
    durationMs: audioVersion.durationMs,
    bpm: analysis.tempo?.bpm ?? null,
    key: analysis.key?.key ?? null,
    camelot: analysis.key?.camelot ?? null,
    integratedLufs: analysis.loudness?.integratedLufs ?? null,
    updatedAt: updatedAt.toISOString(),
  };
  return {
    track: {
      entityId: entity.id,
      summary,
      detail: { versions: { AUDIO: audioVersion, ARTWORK: other('ARTWORK'), VIDEO: other('VIDEO') }, analysis },
      columns: {
        entityType: entity.type,
        titleSort: foldText(entity.title),
        artistSort: entity.artist === null ? null : foldText(entity.artist),
        hasDmrn: entity.externalReferences.dmrn !== null,
        durationMs: summary.durationMs,
        bpm: summary.bpm,
        camelot: summary.camelot,
        integratedLufs: summary.integratedLufs,
        titleWords: foldText(entity.title),
        artistWords: entity.artist === null ? '' : foldText(entity.artist),
        updatedAt,
      },
    },
  };
}

function analysisTimes(analysis: TrackAnalysis): string[] {
  const facts = [analysis.tempo, analysis.key, analysis.loudness, analysis.cuePoints, analysis.technical];
  return [...facts.flatMap((f) => (f ? [f.analyzedAt] : [])), ...(analysis.waveform.analyzedAt ? [analysis.waveform.analyzedAt] : [])];
}

/** The fields of `TRACK_FIELDS` whose values differ between the stored track and the new one, in the registry's order. */
export function changedTrackFields(
  before: Pick<ProjectedTrack, 'summary' | 'detail'>,
  after: Pick<ProjectedTrack, 'summary' | 'detail'>,
): TrackField[] {
  const differ = (a: unknown, b: unknown): boolean => !isDeepStrictEqual(a, b);
  const withoutMarkers = (t: Pick<ProjectedTrack, 'detail'>) => ({
    ...t.detail.versions,
    AUDIO: t.detail.versions.AUDIO ? { ...t.detail.versions.AUDIO, markers: null } : null,
  });
  const fields: Array<[TrackField, boolean]> = [
    ['entityType', differ(before.summary.entityType, after.summary.entityType)],
    ['title', differ(before.summary.title, after.summary.title)],
    ['artist', differ(before.summary.artist, after.summary.artist)],
    ['externalReferences', differ(before.summary.externalReferences, after.summary.externalReferences)],
    ['audioVersion', differ(before.summary.audioVersion, after.summary.audioVersion)],
    ['markers', differ(before.detail.versions.AUDIO?.markers, after.detail.versions.AUDIO?.markers)],
    ['versions', differ(withoutMarkers(before), withoutMarkers(after))],
    ['durationMs', differ(before.summary.durationMs, after.summary.durationMs)],
    ['tempo', differ(before.detail.analysis.tempo, after.detail.analysis.tempo)],
    ['key', differ(before.detail.analysis.key, after.detail.analysis.key)],
    ['loudness', differ(before.detail.analysis.loudness, after.detail.analysis.loudness)],
    ['cuePoints', differ(before.detail.analysis.cuePoints, after.detail.analysis.cuePoints)],
    ['waveform', differ(before.detail.analysis.waveform, after.detail.analysis.waveform)],
    ['technical', differ(before.detail.analysis.technical, after.detail.analysis.technical)],
  ];
  return fields.filter(([, changed]) => changed).map(([field]) => field);
}
