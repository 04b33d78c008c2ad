import { createHash } from 'node:crypto';
import { requestJson } from '../support/setup.js';
import type { FeedLedger } from './feed.js';
import { timed, type LatencyBook } from './latency.js';
import type { Station } from './stations.js';
import { putAndConfirm } from './stations.js';

/**
 * The stations' writes, open loop at a fixed rate across all stations: entities, relations
 * between them, versions from new uploads (a short WAV: create, PUT, confirm), markers on those
 * versions, assignments of them to the station's playout integration and the connector's sync
 * reports. Each write takes what an earlier one made (a version needs a new entity, an assignment
 * a confirmed version, a report an assignment), so each resource gets its one event and a repeat
 * in the feed shows. A write with nothing to work on creates an entity instead. Writes beyond
 * `maxInFlight` (the system stalled, say while a service restarts) are shed and counted.
 */
export interface WriteSettings {
  perSecond: number;
  maxInFlight: number;
  wav: Buffer;
}

export interface Writes {
  /** Writes shed this minute (too many in flight), then starts the next minute. */
  closeMinute(): { shed: number };
  /** Entities whose audio version was confirmed last (the library must show them), newest last. */
  confirmedTracks(): Array<{ key: string; entityId: string }>;
  stop(): Promise<void>;
}

/** Operation → share of the writes (percent). */
const MIX: ReadonlyArray<[Operation, number]> = [
  ['entity', 40],
  ['relation', 10],
  ['version', 5],
  ['markers', 15],
  ['assignment', 15],
  ['sync', 15],
];
type Operation = 'entity' | 'relation' | 'version' | 'markers' | 'assignment' | 'sync';

const WORDS = ['blue', 'night', 'river', 'summer', 'radio', 'dance', 'golden', 'morning'];
/** The words titles are made of, for the library searches. */
export const TITLE_WORDS: readonly string[] = WORDS;
const POOL_LIMIT = 500;

interface StationPools {
  entities: string[];
  withoutVersion: string[];
  toMark: Array<{ entityId: string; versionId: string }>;
  toAssign: Array<{ entityId: string; versionId: string }>;
  toSync: Array<{ entityId: string; versionId: string }>;
}

const take = <T>(pool: T[]): T | undefined => pool.shift();
const keep = <T>(pool: T[], item: T): void => {
  pool.push(item);
  if (pool.length > POOL_LIMIT) pool.shift();
};

export function startWrites(
  base: string,
  stations: readonly Station[],
  settings: WriteSettings,
  book: LatencyBook,
  ledger: FeedLedger,
): Writes {
  const pools = stations.map<StationPools>(() => ({ entities: [], withoutVersion: [], toMark: [], toAssign: [], toSync: [] }));
  const confirmed: Array<{ key: string; entityId: string }> = [];
  const checksum = `sha256:${createHash('sha256').update(settings.wav).digest('hex')}`;
  let inFlight = 0;
  let shed = 0;
  let sequence = 0;
  const pending = new Set<Promise<void>>();

  const createEntity = async (station: Station, pool: StationPools): Promise<void> => {
    const n = (sequence += 1);
    const title = `Track ${station.index}-${n} ${WORDS[n % WORDS.length]} ${WORDS[(n >> 3) % WORDS.length]}`;
    const body = { type: 'song', title, artist: `Artist ${n % 97}` };
    const entity = await timed(book, 'entity.create', () =>
      requestJson('POST', `${base}/api/v1/catalog/entities`, auth(station.key), body),
    );
    if (!entity) return;
    ledger.expect('entity.created', entity.id);
    keep(pool.entities, entity.id as string);
    keep(pool.withoutVersion, entity.id as string);
  };

  const operations: Record<Operation, (station: Station, pool: StationPools) => Promise<void>> = {
    entity: createEntity,
    async relation(station, pool) {
      if (pool.entities.length < 2) return createEntity(station, pool);
      const [sourceId, targetId] = [pool.entities.at(-1)!, pool.entities[Math.floor(Math.random() * (pool.entities.length - 1))]!];
      const relation = await timed(book, 'relation.create', () =>
        requestJson('POST', `${base}/api/v1/catalog/entities/${sourceId}/relations`, auth(station.key), { type: 'remix_of', targetId }),
      );
      if (relation) ledger.expect('relation.created', relation.id);
    },
    async version(station, pool) {
      const entityId = take(pool.withoutVersion);
      if (!entityId) return createEntity(station, pool);
      const upload = { filename: 'tone.wav', contentType: 'audio/wav', size: settings.wav.length, checksum };
      const version = await timed(book, 'version.create', () =>
        requestJson('POST', `${base}/api/v1/catalog/entities/${entityId}/versions`, auth(station.key), {
          source: { upload },
          label: 'Radio edit',
          versionType: 'radio_edit',
        }),
      );
      if (!version) return;
      ledger.expect('version.created', version.id);
      const status = await timed(book, 'upload.confirm', () =>
        putAndConfirm(base, station.key, version.upload, version.asset.id, settings.wav),
      );
      if (!status) return;
      // A file its verification refused is confirmed FAILED: its event is asset.failed.
      ledger.expect(status === 'ONLINE' ? 'asset.confirmed' : 'asset.failed', version.asset.id);
      if (status !== 'ONLINE') return;
      const made = { entityId, versionId: version.id as string };
      keep(pool.toMark, made);
      keep(pool.toAssign, made);
      keep(confirmed, { key: station.key, entityId });
    },
    async markers(station, pool) {
      const next = take(pool.toMark);
      if (!next) return createEntity(station, pool);
      const { entityId, versionId } = next;
      const put = await timed(book, 'markers.put', () =>
        requestJson('PUT', `${base}/api/v1/catalog/entities/${entityId}/versions/${versionId}/markers`, auth(station.key), {
          markers: [{ type: 'cue_in', positionMs: 10 }],
        }),
      );
      if (put) ledger.expect('markers.updated', versionId);
    },
    async assignment(station, pool) {
      const next = take(pool.toAssign);
      if (!next) return createEntity(station, pool);
      const path = `${base}/api/v1/catalog/integrations/${station.integrationId}/assignments/${next.entityId}`;
      const assigned = await timed(book, 'assignment.put', () => requestJson('PUT', path, auth(station.key)));
      if (!assigned) return;
      ledger.expect('assignment.created', next.entityId);
      keep(pool.toSync, next);
    },
    async sync(station, pool) {
      const next = take(pool.toSync);
      if (!next) return createEntity(station, pool);
      const path = `${base}/api/v1/catalog/integrations/${station.integrationId}/assignments/${next.entityId}/sync`;
      const body = { state: 'synced', versionIds: [next.versionId], externalId: `SOAK-${next.entityId.slice(0, 8)}` };
      const reported = await timed(book, 'sync.report', () => requestJson('POST', path, auth(station.connectorKey), body));
      if (reported) ledger.expect('assignment.sync_state_changed', next.entityId);
    },
  };

  const pick = (): Operation => {
    let roll = Math.random() * 100;
    for (const [operation, share] of MIX) {
      roll -= share;
      if (roll < 0) return operation;
    }
    return 'entity';
  };

  const launch = (): void => {
    if (inFlight >= settings.maxInFlight) {
      shed += 1;
      return;
    }
    const station = stations[Math.floor(Math.random() * stations.length)]!;
    inFlight += 1;
    const run = operations[pick()](station, pools[station.index]!).finally(() => {
      inFlight -= 1;
      pending.delete(run);
    });
    pending.add(run);
  };

  // Ticks of 100 ms, each launching its share of the rate (the fraction carried over).
  let owed = 0;
  const timer = setInterval(() => {
    owed += settings.perSecond / 10;
    for (; owed >= 1; owed -= 1) launch();
  }, 100);

  return {
    closeMinute() {
      const minute = { shed };
      shed = 0;
      return minute;
    },
    confirmedTracks: () => confirmed.slice(-50),
    async stop() {
      clearInterval(timer);
      await Promise.all([...pending]);
    },
  };
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
