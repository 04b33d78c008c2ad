import type { Entity, Version } from '@catalog/contracts';
import { newId, readConfig } from '@catalog/platform';
import { serviceEnvironment, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';
import { analysisFacts } from '../src/domain/analysis-facts.js';
import type { ProjectionDeps } from '../src/domain/projection.js';
import { projectTrack } from '../src/domain/track.js';
import { libraryConfig, startLibraryService } from '../src/index.js';

/** A song as the catalog answers it. */
export const testEntity: Entity = {
  id: '01900000-0000-7000-8000-000000000001',
  type: 'song',
  title: 'Café',
  artist: null,
  externalReferences: { dmrn: null },
  primaryAudioVersion: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};

/** A primary audio version of `entityId` whose file is ONLINE, unless `overrides` say otherwise. */
export function audioVersion(overrides: Partial<Version> & { status?: Version['asset']['status'] }, entityId = testEntity.id): Version {
  const { status, ...rest } = overrides;
  return {
    id: '01900000-0000-7000-8000-00000000000a',
    entityId,
    kind: 'AUDIO',
    label: 'Main',
    versionType: 'radio_edit',
    isPrimary: true,
    durationMs: 1000,
    markers: [],
    asset: { id: '01900000-0000-7000-8000-0000000000a1', status: status ?? 'ONLINE', contentType: 'audio/wav', size: 10, durationMs: 1000 },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-03T00:00:00.000Z',
    ...rest,
  } as Version;
}

/**
 * The projected track of a song `id` with `title` and `artist`, its audio ONLINE, with a tempo
 * result of `bpm` when given and `updatedAt` when given (what the search tests store and look for).
 */
export function searchableTrack(
  id: string,
  title: string,
  artist: string | null = null,
  options: { bpm?: number; updatedAt?: string } = {},
) {
  const version = audioVersion(
    { id: newId(), asset: { id: newId(), status: 'ONLINE', contentType: 'audio/wav', size: 10, durationMs: 1000 } },
    id,
  );
  const tempo = { jobId: newId(), type: 'tempo', finishedAt: null, summary: { bpm: options.bpm ?? null, confidence: 0.9 } };
  const entity = { ...testEntity, id, title, artist, ...(options.updatedAt ? { updatedAt: options.updatedAt } : {}) };
  const outcome = projectTrack(entity, [version], new Map(), analysisFacts(options.bpm === undefined ? {} : { tempo }));
  if (!('track' in outcome)) throw new Error('expected a track');
  return outcome.track;
}

/** The library service on `database` (its own NATS prefix, any free port). */
export async function startTestLibrary(database: TestDatabase) {
  const config = readConfig(libraryConfig, {
    ...(await serviceEnvironment(database, ['library'])),
    NATS_PREFIX: uniqueNatsPrefix(),
    LIBRARY_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
  });
  return startLibraryService(config, { logger: testLogger() });
}

/**
 * The catalog and analysis services as the projection reads them (their interfaces, decision
 * 0102): `entities` by tenant, each with the versions `versionsOf` gives it (by default one ONLINE
 * primary audio version); reads of entities and of versions counted.
 */
export function catalogDouble(
  db: ProjectionDeps['db'],
  entities: Map<string, Map<string, Entity>>,
  versionsOf: (entityId: string) => Version[] = (entityId) => [audioVersion({}, entityId)],
) {
  const calls = { entity: 0, versions: 0, tenantPage: 0 };
  const deps: ProjectionDeps & { logger: ReturnType<typeof testLogger>; subscribed: (tenantId: string) => Promise<boolean> } = {
    db,
    logger: testLogger(),
    subscribed: async () => true,
    catalog: {
      entities: async (tenantId, entityIds) => {
        calls.entity += 1;
        return new Map(
          entityIds.flatMap((id) => (entities.get(tenantId)?.has(id) ? [[id, entities.get(tenantId)!.get(id)!] as const] : [])),
        );
      },
      versions: async (_tenantId, entityId) => {
        calls.versions += 1;
        return versionsOf(entityId);
      },
      tenantPage: async () => {
        calls.tenantPage += 1;
        return { tenants: [...entities.keys()], nextCursor: null };
      },
      entityPage: async (tenantId) => ({ ids: [...(entities.get(tenantId)?.keys() ?? [])], nextCursor: null }),
      relations: async () => [],
      integrationPage: async () => ({ ids: [], nextCursor: null }),
      assignmentPage: async () => ({ assignments: [], nextCursor: null }),
    },
    analyses: { newest: async () => ({}) },
  };
  return { deps, calls };
}
