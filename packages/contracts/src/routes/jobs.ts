import { CreateJobBody, Job, JobPage, JobParams, ListJobsQuery } from '../schemas/import-jobs.js';
import { catalogApi, type RouteDefinition } from './types.js';

/** Jobs of the catalog (import of entities from a file), answered by the catalog service (decision 0134). */
export const jobRoutes = [
  {
    operationId: 'createJob',
    method: 'POST',
    path: '/api/v1/catalog/jobs',
    summary:
      'Start an import of entities from a JSON Lines or CSV file (an ONLINE standalone asset): runs in the background, GET the job for its progress',
    tag: 'Jobs',
    service: 'catalog',
    auth: catalogApi,
    idempotent: true,
    body: CreateJobBody,
    success: { status: 202, description: 'the job, queued', schema: Job },
    // 404 unknown asset; 409 asset not ONLINE or not standalone; 415 not application/x-ndjson or text/csv.
    errors: [400, 404, 409, 415],
  },
  {
    operationId: 'getJob',
    method: 'GET',
    path: '/api/v1/catalog/jobs/{jobId}',
    summary: 'Read a job: state, progress, counts and the first bad rows',
    tag: 'Jobs',
    service: 'catalog',
    auth: catalogApi,
    params: JobParams,
    resources: { jobId: 'job' },
    success: { status: 200, description: 'the job', schema: Job },
    errors: [404],
  },
  {
    operationId: 'listJobs',
    method: 'GET',
    path: '/api/v1/catalog/jobs',
    summary: 'List the jobs of the tenant, newest first',
    tag: 'Jobs',
    service: 'catalog',
    auth: catalogApi,
    query: ListJobsQuery,
    success: { status: 200, description: 'a page of jobs', schema: JobPage },
    errors: [400],
  },
] as const satisfies readonly RouteDefinition[];
