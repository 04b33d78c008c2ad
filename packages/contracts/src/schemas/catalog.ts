import { Type, type Static } from '@sinclair/typebox';
import { Line, PageAfter, Timestamp, Uuid } from './common.js';
import { ANALYSIS_TYPES, AnalysisTypeSchema } from './analyses.js';
import { PrimaryAudioVersion } from './versions.js';

export * from './versions.js';

export const EntityTypeName = Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$', description: 'e.g. song, jingle, station_id' });
export const DmrnValue = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$', description: 'external reference (DMRN)' });

export const ExternalReferences = Type.Object({ dmrn: Type.Union([DmrnValue, Type.Null()]) });

export const Entity = Type.Object({
  id: Uuid,
  type: EntityTypeName,
  title: Type.String(),
  artist: Type.Union([Type.String(), Type.Null()]),
  externalReferences: ExternalReferences,
  primaryAudioVersion: Type.Union([PrimaryAudioVersion, Type.Null()], {
    description: 'the primary AUDIO version while its file is ONLINE (else null); the default analysis source',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Entity = Static<typeof Entity>;

const Title = Line(1, 500);
const Artist = Line(1, 500);

export const CreateEntityBody = Type.Object(
  {
    type: EntityTypeName,
    title: Title,
    artist: Type.Optional(Artist),
    externalReferences: Type.Optional(Type.Object({ dmrn: Type.Optional(DmrnValue) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type CreateEntityBody = Static<typeof CreateEntityBody>;

/** Most entities one batch creation takes (decision 0007). */
const MAX_ENTITY_BATCH = 100;

export const CreateEntitiesBody = Type.Object(
  { entities: Type.Array(CreateEntityBody, { minItems: 1, maxItems: MAX_ENTITY_BATCH }) },
  { additionalProperties: false },
);
export type CreateEntitiesBody = Static<typeof CreateEntitiesBody>;

export const EntityBatch = Type.Object({
  batchId: Uuid,
  entities: Type.Array(Entity, { description: 'the created entities, in the order they were sent' }),
});
export type EntityBatch = Static<typeof EntityBatch>;

export const UpdateEntityBody = Type.Object(
  {
    type: Type.Optional(EntityTypeName),
    title: Type.Optional(Title),
    artist: Type.Optional(Type.Union([Artist, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateEntityBody = Static<typeof UpdateEntityBody>;

export const ListEntitiesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    after: PageAfter,
    type: Type.Optional(EntityTypeName),
  },
  { additionalProperties: false },
);
export type ListEntitiesQuery = Static<typeof ListEntitiesQuery>;

export const AttachDmrnBody = Type.Object({ value: DmrnValue }, { additionalProperties: false });
export type AttachDmrnBody = Static<typeof AttachDmrnBody>;

const CuePointMarkers = Type.Boolean({
  description:
    "the cue_points results of its versions' analyses become the versions' markers (cue_in, intro_end, outro_start, segue, cue_out); markers set by hand win (decision 0088)",
});

export const EntityType = Type.Object({
  name: EntityTypeName,
  automaticAnalyses: Type.Array(AnalysisTypeSchema),
  cuePointMarkers: CuePointMarkers,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type EntityType = Static<typeof EntityType>;

export const PutEntityTypeBody = Type.Object(
  {
    automaticAnalyses: Type.Array(AnalysisTypeSchema, { uniqueItems: true, maxItems: ANALYSIS_TYPES.length }),
    cuePointMarkers: Type.Optional(Type.Boolean({ ...CuePointMarkers, description: `${CuePointMarkers.description} (default false)` })),
  },
  { additionalProperties: false },
);
export type PutEntityTypeBody = Static<typeof PutEntityTypeBody>;
