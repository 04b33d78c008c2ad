import { Type } from '@sinclair/typebox';
import { AnalysisJob, AnalysisJobPage, AnalysisJobParams, CreateAnalysisBody, ListAnalysesQuery } from '../schemas/analysis-jobs.js';
import { CreditBalance, CreditGrant, CreditLedger, CreditLedgerQuery, GrantCreditsBody } from '../schemas/credits.js';
import { Uuid } from '../schemas/common.js';
import { IdempotencyKeyHeaders } from '../schemas/idempotency.js';
import { adminAuth, catalogApi, type RouteAuth, type RouteDefinition } from './types.js';

/** Analyses consume credits: their routes need the analysis permission, granted separately (part 5). */
const analysisApi = { kind: 'apiKey', product: 'catalog', permission: 'catalog:analysis', entitlement: true } as const satisfies RouteAuth;

const CreditsPath = '/admin/v1/organizations/{orgId}/credits';

/** What the two admin routes of an organisation's credits share: path, area, service, auth, the organisation. */
const organizationCredits = {
  path: CreditsPath,
  tag: 'Admin',
  service: 'analysis',
  auth: adminAuth,
  tenantScoped: false,
  params: Type.Object({ orgId: Uuid }),
  resources: { orgId: 'organization' },
} as const;

/** Analysis jobs and credits, answered by the analysis service (decisions 0085-0087). */
export const analysisRoutes = [
  {
    operationId: 'createAnalysis',
    method: 'POST',
    path: '/api/v1/catalog/analyses',
    summary:
      'Queue an analysis of an asset, an entity (its primary online audio version) or a version; reserves its cost in credits (Idempotency-Key: a retry answers the same job)',
    tag: 'Analyses',
    service: 'analysis',
    auth: analysisApi,
    headers: IdempotencyKeyHeaders,
    idempotent: true,
    body: CreateAnalysisBody,
    success: {
      status: 202,
      description: 'the job, QUEUED (for a retry with the same Idempotency-Key: the first answer within 24 h, the job as it is now after)',
      schema: AnalysisJob,
    },
    // 402 insufficient_credits (details: balance, cost); 404 unknown source; 409 source not ONLINE,
    // no primary online audio version, Idempotency-Key reused with another request; 415 not audio.
    errors: [400, 402, 404, 409, 415],
  },
  {
    operationId: 'getAnalysis',
    method: 'GET',
    path: '/api/v1/catalog/analyses/{jobId}',
    summary: 'Read an analysis job: status, timestamps, the resolved source, credits, and the result once SUCCEEDED',
    tag: 'Analyses',
    service: 'analysis',
    auth: analysisApi,
    params: AnalysisJobParams,
    resources: { jobId: 'analysis' },
    // A result too large for a bus reply (a waveform at high resolution) comes from the analysis
    // service's listener, streamed by the gateway (decision 0113).
    success: { status: 200, description: 'the job, with its whole result once SUCCEEDED', schema: AnalysisJob, streamedWhenLarge: true },
    errors: [404],
    alsoCalledBy: ['library'],
  },
  {
    operationId: 'listAnalyses',
    method: 'GET',
    path: '/api/v1/catalog/analyses',
    summary:
      'List analysis jobs, newest first, by entity or asset (an asset also matches jobs whose entity or version resolved to it); each with a summary of its result, the whole result is at GET /api/v1/catalog/analyses/{jobId}',
    tag: 'Analyses',
    service: 'analysis',
    auth: analysisApi,
    query: ListAnalysesQuery,
    success: { status: 200, description: 'a page of jobs', schema: AnalysisJobPage },
    errors: [400],
    alsoCalledBy: ['library'],
  },
  {
    operationId: 'getCredits',
    method: 'GET',
    path: '/api/v1/catalog/credits',
    summary: "The tenant's credit balance, credits held by running jobs, and the cost of each analysis type",
    tag: 'Analyses',
    service: 'analysis',
    auth: catalogApi,
    success: { status: 200, description: 'the balance', schema: CreditBalance },
  },
  {
    operationId: 'grantCredits',
    method: 'POST',
    summary: 'Add credits to an organisation (an entry of its append-only ledger)',
    ...organizationCredits,
    idempotent: true,
    body: GrantCreditsBody,
    success: { status: 201, description: 'the balance after the grant, and its ledger entry', schema: CreditGrant },
    errors: [400, 404],
  },
  {
    operationId: 'getCreditLedger',
    method: 'GET',
    summary: "An organisation's credit balance and its ledger, newest entry first",
    ...organizationCredits,
    query: CreditLedgerQuery,
    success: { status: 200, description: 'the balance and a page of the ledger', schema: CreditLedger },
    errors: [400, 404],
  },
] as const satisfies readonly RouteDefinition[];
