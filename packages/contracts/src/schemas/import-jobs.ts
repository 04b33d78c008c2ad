import { Type, type Static } from '@sinclair/typebox';
import { DmrnValue, EntityTypeName } from './catalog.js';
import { Line, Page, PageAfter, Timestamp, Uuid } from './common.js';

/**
 * Jobs of the catalog (decision 0134): an import of entities from a JSON Lines or CSV
 * file (a standalone asset of kind DATA), run on the bus and readable while it runs.
 */
export const JOB_TYPES = ['import'] as const;
export type JobType = (typeof JOB_TYPES)[number];
export const JobTypeSchema = Type.Union(JOB_TYPES.map((t) => Type.Literal(t)));

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const JobStateSchema = Type.Union(JOB_STATES.map((s) => Type.Literal(s)));

/** Most row errors a job keeps (the first ones, by row number); `errorCount` counts them all. */
export const MAX_JOB_ROW_ERRORS = 100;

export const CreateJobBody = Type.Object(
  {
    type: JobTypeSchema,
    source: Type.Object(
      { assetId: Uuid },
      { additionalProperties: false, description: 'assetId: an ONLINE standalone asset of application/x-ndjson or text/csv' },
    ),
  },
  { additionalProperties: false },
);
export type CreateJobBody = Static<typeof CreateJobBody>;

/**
 * One row of an import file (a line of JSON Lines, a record of CSV under a header naming these
 * columns): an entity. A row with a `dmrn` of an existing entity updates it; else `externalId`
 * (the tenant's old system's id), else type, title and artist find an entity an import made
 * before (decision 0134). An absent artist leaves the entity's as it is.
 */
export const ImportRow = Type.Object(
  {
    type: EntityTypeName,
    title: Line(1, 500),
    artist: Type.Optional(Line(1, 500)),
    dmrn: Type.Optional(DmrnValue),
    externalId: Type.Optional(Line(1, 200, "the entity's id in the tenant's former system")),
  },
  { additionalProperties: false },
);
export type ImportRow = Static<typeof ImportRow>;

/** The columns a CSV file may have (its header names them; type and title are required). */
export const IMPORT_COLUMNS = ['type', 'title', 'artist', 'dmrn', 'externalId'] as const;

export const JobParams = Type.Object({ jobId: Uuid });

export const JobRowError = Type.Object({
  row: Type.Integer({ minimum: 1, description: 'row number in the file: the line of JSON Lines, the record of CSV after its header' }),
  code: Type.String({ description: 'snake_case: invalid_json, invalid_row, duplicate_in_file, dmrn_conflict, external_id_conflict' }),
  message: Type.String(),
});
export type JobRowError = Static<typeof JobRowError>;

export const JobCounts = Type.Object({
  created: Type.Integer({ minimum: 0, description: 'rows that created an entity' }),
  updated: Type.Integer({ minimum: 0, description: 'rows that changed the entity they matched (entity.updated)' }),
  unchanged: Type.Integer({ minimum: 0, description: 'rows whose entity already was as the row says: nothing written' }),
  skipped: Type.Integer({ minimum: 0, description: 'bad rows: reported in errors, nothing written' }),
});
export type JobCounts = Static<typeof JobCounts>;

export const Job = Type.Object({
  jobId: Uuid,
  type: JobTypeSchema,
  state: JobStateSchema,
  source: Type.Object({ assetId: Uuid }),
  progress: Type.Object({
    processed: Type.Integer({ minimum: 0, description: 'rows done (committed)' }),
    total: Type.Integer({ minimum: 0, description: 'rows of the file; 0 until the job counted them' }),
  }),
  counts: JobCounts,
  errors: Type.Array(JobRowError, {
    maxItems: MAX_JOB_ROW_ERRORS,
    description: `the first ${MAX_JOB_ROW_ERRORS} bad rows, by row number; errorCount counts all of them`,
  }),
  errorCount: Type.Integer({ minimum: 0 }),
  failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
    description: 'why the job failed (the file could not be read); bad rows never fail a job',
  }),
  createdAt: Timestamp,
  startedAt: Type.Union([Timestamp, Type.Null()]),
  finishedAt: Type.Union([Timestamp, Type.Null()]),
});
export type Job = Static<typeof Job>;

export const ListJobsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type ListJobsQuery = Static<typeof ListJobsQuery>;

/** A page of jobs, newest first. */
export const JobPage = Page('jobs', Job);
export type JobPage = Static<typeof JobPage>;
