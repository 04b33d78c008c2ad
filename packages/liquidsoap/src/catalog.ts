import { NotFoundError, unwrap, type CatalogClient } from '@catalog/sdk';
import type { TrackFacts } from './annotations.js';

/** What the connector uses of an assignment. */
export interface Assignment {
  entityId: string;
  syncState: string;
}

/** The file a song plays from: its asset, as the catalog describes it. */
export interface SourceFile {
  assetId: string;
  contentType: string;
  /** `sha256:<hex>` of the stored bytes. */
  checksum: string | null;
}

/** What the connector reads from the catalog, each a resource API call. */
export interface CatalogReads {
  /** The integration's assignments, in the order they were made. */
  assignments(): Promise<Assignment[]>;
  /** The integration's heartbeat, when it has one. */
  heartbeatSeconds(): Promise<number | null>;
  /** A song's primary AUDIO version with its facts and file; null when it has none online (or the entity is gone). */
  track(entityId: string): Promise<{ facts: TrackFacts; file: SourceFile } | null>;
}

const CUE_MARKERS = ['cue_in', 'intro_end', 'outro_start', 'segue', 'cue_out'] as const;
/** The `cue_points` result's field of each marker type. */
const FROM_ANALYSIS: Record<(typeof CUE_MARKERS)[number], string> = {
  cue_in: 'cueInMs',
  intro_end: 'introEndMs',
  outro_start: 'outroStartMs',
  segue: 'nextTrackStartMs',
  cue_out: 'cueOutMs',
};

/** Markers set on the version win; the cue_points analysis fills what the version lacks. */
export function cueMarkers(
  markers: ReadonlyArray<{ type: string; positionMs: number }>,
  cuePoints: Record<string, unknown> | null,
): Partial<Record<string, number>> {
  const chosen: Partial<Record<string, number>> = {};
  for (const type of CUE_MARKERS) {
    const marker = markers.find((m) => m.type === type);
    const analysed = cuePoints?.[FROM_ANALYSIS[type]];
    if (marker) chosen[type] = marker.positionMs;
    else if (typeof analysed === 'number') chosen[type] = analysed;
  }
  return chosen;
}

/** The newest succeeded result of `type` for the asset (a listing's summary holds these results whole). */
async function latestResult(
  client: CatalogClient,
  assetId: string,
  type: 'loudness' | 'cue_points',
): Promise<Record<string, unknown> | null> {
  const page = await unwrap(
    client.api.GET('/api/v1/catalog/analyses', { params: { query: { assetId, type, status: 'SUCCEEDED', limit: 1 } } }),
  );
  const summary = page.analyses[0]?.summary;
  return summary && typeof summary === 'object' ? (summary as Record<string, unknown>) : null;
}

/** A song's primary AUDIO version with its facts and file; null when it has none online (or the entity is gone). */
async function readTrack(client: CatalogClient, entityId: string): Promise<{ facts: TrackFacts; file: SourceFile } | null> {
  const { api } = client;
  let entity;
  try {
    entity = await unwrap(api.GET('/api/v1/catalog/entities/{id}', { params: { path: { id: entityId } } }));
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
  const primary = entity.primaryAudioVersion;
  if (!primary) return null;
  const [version, asset, loudness, cuePoints] = await Promise.all([
    unwrap(api.GET('/api/v1/catalog/entities/{id}/versions/{versionId}', { params: { path: { id: entityId, versionId: primary.id } } })),
    unwrap(api.GET('/api/v1/catalog/assets/{id}', { params: { path: { id: primary.assetId } } })),
    latestResult(client, primary.assetId, 'loudness'),
    latestResult(client, primary.assetId, 'cue_points'),
  ]);
  const integrated = loudness?.integratedLufs;
  return {
    facts: {
      entityId,
      versionId: version.id,
      title: entity.title,
      artist: entity.artist,
      durationMs: version.durationMs,
      markers: cueMarkers(version.markers, cuePoints),
      integratedLufs: typeof integrated === 'number' ? integrated : null,
    },
    file: { assetId: asset.id, contentType: asset.contentType, checksum: asset.checksum },
  };
}

export function catalogReads(client: CatalogClient, integrationId: string): CatalogReads {
  const { api } = client;
  return {
    async assignments() {
      const all: Assignment[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await unwrap(
          api.GET('/api/v1/catalog/integrations/{id}/assignments', {
            params: { path: { id: integrationId }, query: { limit: 500, ...(after ? { after } : {}) } },
          }),
        );
        all.push(...page.assignments.map(({ entityId, syncState }) => ({ entityId, syncState })));
        if (!page.hasMore || !page.nextCursor) return all;
        after = page.nextCursor;
      }
    },
    async heartbeatSeconds() {
      const integration = await unwrap(api.GET('/api/v1/catalog/integrations/{id}', { params: { path: { id: integrationId } } }));
      return integration.heartbeatSeconds;
    },
    track: (entityId) => readTrack(client, entityId),
  };
}
