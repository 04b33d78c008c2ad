import { Type } from '@sinclair/typebox';
import { AnalysisTypeSchema } from '../schemas/analyses.js';
import { AnalysisJobStatusSchema } from '../schemas/analysis-jobs.js';
import { Uuid } from '../schemas/common.js';
import type { EventTypeDefinition } from './types.js';

/**
 * What every analysis event says: the job, its type, the file and the entity and version it
 * belongs to (null for a standalone file), its status after the transition and the credits it
 * holds then (its cost while reserved or settled, 0 once refunded).
 */
const jobFacts = Type.Object({
  jobId: Uuid,
  type: AnalysisTypeSchema,
  assetId: Uuid,
  entityId: Type.Union([Uuid, Type.Null()], { description: 'null for an asset source (a standalone file)' }),
  versionId: Type.Union([Uuid, Type.Null()]),
  status: AnalysisJobStatusSchema,
  credits: Type.Integer({ minimum: 0 }),
});

/**
 * Events of the analyses family (resourceKind `analysis`, resourceId the job id, dmrn the entity's
 * DMRN or null), published by the analysis service on `<prefix>.events.catalog.analysis.<what>`.
 * The result is not in the event: read it with GET /api/v1/catalog/analyses/{jobId}.
 */
export const analysisEvents = [
  {
    type: 'analysis.queued',
    product: 'catalog',
    resourceKind: 'analysis',
    schemaVersion: 1,
    description: 'An analysis job was created and its cost reserved; it waits for a worker (QUEUED).',
    data: jobFacts,
  },
  {
    type: 'analysis.started',
    product: 'catalog',
    resourceKind: 'analysis',
    schemaVersion: 1,
    description: 'A worker started the job (RUNNING); recorded once, not again when another worker takes over a job whose worker died.',
    data: jobFacts,
  },
  {
    type: 'analysis.succeeded',
    product: 'catalog',
    resourceKind: 'analysis',
    schemaVersion: 1,
    description: 'The job succeeded and its cost was charged (SUCCEEDED); the result is readable.',
    data: jobFacts,
  },
  {
    type: 'analysis.failed',
    product: 'catalog',
    resourceKind: 'analysis',
    schemaVersion: 1,
    description:
      'The job failed and its reservation was refunded (FAILED, credits 0); also an automatic analysis the balance could not pay (insufficient_credits).',
    data: Type.Object({ ...jobFacts.properties, errorCode: Type.String({ description: "the job's error.code" }) }),
  },
] as const satisfies readonly EventTypeDefinition[];
