import { CatalogError, unwrap, type CatalogClient } from '@catalog/sdk';
import { playlistLine } from './annotations.js';
import type { CatalogReads } from './catalog.js';
import type { Log } from './log.js';
import { UnsyncableError, type MediaFolder } from './media.js';
import { PlaylistState } from './playlist-state.js';

export interface ConnectorParts {
  client: CatalogClient;
  reads: CatalogReads;
  media: MediaFolder;
  integrationId: string;
  playlist: string;
  targetLufs: number;
  log: Log;
}

/** The state of the connector a heartbeat reports. */
export interface ConnectorStatus {
  assigned: number;
  failed: Map<string, string>;
}

type SyncReport = { state: 'synced' | 'failed'; versionIds: string[]; externalId?: string; error?: string };

async function report(parts: ConnectorParts, entityId: string, body: SyncReport): Promise<void> {
  try {
    await unwrap(
      parts.client.api.POST('/api/v1/catalog/integrations/{id}/assignments/{entityId}/sync', {
        params: { path: { id: parts.integrationId, entityId } },
        body,
      }),
    );
  } catch (error) {
    // Unassigned meanwhile: its assignment.deleted removes it.
    if (error instanceof CatalogError && error.status === 404) return;
    throw error;
  }
}

/** Why a song could not be synced, or null for a failure that is not the song's (thrown on). */
function reasonOf(error: unknown): string | null {
  if (error instanceof UnsyncableError) return error.message;
  if (error instanceof CatalogError && error.status < 500 && error.status !== 429) return `download refused: ${error.message}`;
  return null;
}

/** Brings one assigned song up to date: its file in place, its line written, then the report. */
async function syncSong(parts: ConnectorParts, state: PlaylistState, entityId: string): Promise<void> {
  const track = await parts.reads.track(entityId);
  if (track === null) {
    const reason = 'no primary AUDIO version online';
    state.failed.set(entityId, reason);
    await report(parts, entityId, { state: 'failed', versionIds: [], error: reason });
    return;
  }
  const { facts, file } = track;
  const previous = state.held.get(entityId);
  try {
    const path = parts.media.pathOf(facts.versionId, file);
    const downloaded = await parts.media.ensure(facts.versionId, file);
    state.held.set(entityId, { versionId: facts.versionId, path, line: playlistLine(facts, parts.targetLufs, path) });
    state.failed.delete(entityId);
    await state.write();
    // Only once the playlist no longer names it.
    if (previous && previous.path !== path) await parts.media.remove(previous.path);
    await report(parts, entityId, { state: 'synced', versionIds: [facts.versionId], externalId: path });
    parts.log.info('synced', { entityId, versionId: facts.versionId, path, downloaded });
  } catch (error) {
    const reason = reasonOf(error);
    if (reason === null) throw error;
    state.failed.set(entityId, reason);
    await report(parts, entityId, { state: 'failed', versionIds: [facts.versionId], error: reason });
    parts.log.warn('failed', { entityId, versionId: facts.versionId, reason });
  }
}

/** Takes a song off: its line, then its file. */
async function dropSong(parts: ConnectorParts, state: PlaylistState, entityId: string): Promise<void> {
  const song = state.held.get(entityId);
  state.order = state.order.filter((id) => id !== entityId);
  state.held.delete(entityId);
  state.failed.delete(entityId);
  await state.write();
  if (song) await parts.media.remove(song.path);
  parts.log.info('removed', { entityId });
}

/**
 * Keeps the playlist and the media folder what the catalog assigns: one line and one file per
 * assigned song with a playable primary AUDIO version, in the order of the assignments, each
 * reported `synced` (externalId: the file's path) once its file is in place, or `failed` with why.
 */
export function playlistConnector(parts: ConnectorParts) {
  const state = new PlaylistState(parts.playlist);
  return {
    /** From the resource APIs: every assignment synced, every other song and file gone. */
    async reconcile(): Promise<void> {
      const assigned = (await parts.reads.assignments()).map((a) => a.entityId);
      for (const entityId of [...state.held.keys()].filter((id) => !assigned.includes(id))) await dropSong(parts, state, entityId);
      state.order = assigned;
      for (const entityId of assigned) await syncSong(parts, state, entityId);
      await state.write();
      const kept = new Set([...state.held.values()].map((song) => song.path));
      for (const stray of await parts.media.strays(kept)) await parts.media.remove(stray);
    },
    /** A song the feed says changed: synced again when it is assigned (in assignment order), dropped when not. */
    async refresh(entityId: string): Promise<void> {
      const assigned = (await parts.reads.assignments()).map((a) => a.entityId);
      if (!assigned.includes(entityId)) {
        if (state.order.includes(entityId) || state.held.has(entityId)) await dropSong(parts, state, entityId);
        return;
      }
      state.order = assigned;
      await syncSong(parts, state, entityId);
    },
    isAssigned: (entityId: string): boolean => state.order.includes(entityId),
    status: (): ConnectorStatus => ({ assigned: state.order.length, failed: new Map(state.failed) }),
  };
}

export type PlaylistConnector = ReturnType<typeof playlistConnector>;
