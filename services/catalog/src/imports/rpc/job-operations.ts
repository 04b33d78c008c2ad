import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { createJob, getJob, listJobs, type JobDeps } from '../domain/import-jobs.js';

/** The job operations of the table (import jobs, decision 0134). */
export function jobOperations(deps: JobDeps): Operation[] {
  return [
    defineOperation(operationById('createJob'), async ({ body }, call) => ({ body: await createJob(deps, call, body) })),
    defineOperation(operationById('getJob'), async ({ params }, call) => ({ body: await getJob(deps, call, params.jobId) })),
    defineOperation(operationById('listJobs'), async ({ query }, call, reply) => ({
      body: await listJobs(deps, call, query, reply.maxBodyBytes),
    })),
  ];
}
