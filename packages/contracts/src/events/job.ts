import { Type } from '@sinclair/typebox';
import { Uuid } from '../schemas/common.js';
import { JobTypeSchema } from '../schemas/import-jobs.js';
import type { EventTypeDefinition } from './types.js';

const count = Type.Integer({ minimum: 0 });

/** What every job event says: the job, its type, its file. */
const jobFacts = { jobId: Uuid, type: JobTypeSchema, assetId: Uuid };

/** Rows done and rows of the file (0 until counted). */
const progress = { processed: count, total: count };

/**
 * Events of the jobs family (resourceKind `job`, resourceId and batchId the job id, dmrn null),
 * recorded by the catalog (decision 0134). The entity events an import records carry the job id
 * as their batchId too. Read the job (GET /api/v1/catalog/jobs/{jobId}) for its row errors.
 */
export const jobEvents = [
  {
    type: 'job.created',
    product: 'catalog',
    resourceKind: 'job',
    schemaVersion: 1,
    description: 'A job was created (queued); this event is also its message on the work queue.',
    data: Type.Object(jobFacts),
  },
  {
    type: 'job.progressed',
    product: 'catalog',
    resourceKind: 'job',
    schemaVersion: 1,
    description: 'A running job got further: at most one per 10 % of its rows or per 5 s, never one per row.',
    data: Type.Object({ ...jobFacts, ...progress }),
  },
  {
    type: 'job.succeeded',
    product: 'catalog',
    resourceKind: 'job',
    schemaVersion: 1,
    description: 'Every row was read: created, updated, unchanged, and skipped (bad rows, see the job) counted.',
    data: Type.Object({ ...jobFacts, ...progress, created: count, updated: count, unchanged: count, skipped: count }),
  },
  {
    type: 'job.failed',
    product: 'catalog',
    resourceKind: 'job',
    schemaVersion: 1,
    description: 'The job stopped for good (its file could not be read, or every attempt failed); rows done before stay done.',
    data: Type.Object({ ...jobFacts, ...progress, errorCode: Type.String({ description: "the job's failure.code" }) }),
  },
] as const satisfies readonly EventTypeDefinition[];
