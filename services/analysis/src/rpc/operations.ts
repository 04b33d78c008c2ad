import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { getCreditLedger, getCredits, grantCredits, type CreditDeps } from '../domain/credits.js';
import { createAnalysis, getAnalysis, listAnalyses, type JobDeps } from '../domain/jobs.js';

/**
 * The analysis service's operations of the table: jobs (catalog:analysis), the tenant's balance
 * (catalog:api) and the admin area's credits, which act for the organisation in the path.
 */
export function analysisOperations(deps: JobDeps & CreditDeps): Operation[] {
  return [
    defineOperation(operationById('createAnalysis'), async ({ body, headers }, call) => ({
      body: await createAnalysis(deps, call, body, headers['idempotency-key']),
    })),
    defineOperation(operationById('getAnalysis'), ({ params }, call, reply) => getAnalysis(deps, call, params.jobId, reply.maxBodyBytes)),
    defineOperation(operationById('listAnalyses'), async ({ query }, call, reply) => ({
      body: await listAnalyses(deps, call, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('getCredits'), async (_input, call) => ({ body: await getCredits(deps, call) })),
    defineOperation(operationById('grantCredits'), async ({ params, body }) => ({ body: await grantCredits(deps, params.orgId, body) })),
    defineOperation(operationById('getCreditLedger'), async ({ params, query }, _call, reply) => ({
      body: await getCreditLedger(deps, params.orgId, query, reply.maxBodyBytes),
    })),
  ];
}
