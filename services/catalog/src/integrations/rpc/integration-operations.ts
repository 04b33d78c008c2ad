import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { deleteAssignment, listAssignments, putAssignment, reportAssignmentSync, type AssignmentDeps } from '../domain/assignments.js';
import { reportHealth } from '../domain/integration-health.js';
import { createIntegration, deleteIntegration, getIntegration, listIntegrations, updateIntegration } from '../domain/integrations.js';

/** The integration, health and assignment operations of the table (decisions 0132, 0133). */
export function integrationOperations(deps: AssignmentDeps): Operation[] {
  return [
    defineOperation(operationById('createIntegration'), async ({ body }, call) => ({ body: await createIntegration(deps, call, body) })),
    defineOperation(operationById('listIntegrations'), async ({ query }, call, reply) => ({
      body: await listIntegrations(deps, call, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('getIntegration'), async ({ params }, call) => ({ body: await getIntegration(deps, call, params.id) })),
    defineOperation(operationById('updateIntegration'), async ({ params, body }, call) => ({
      body: await updateIntegration(deps, call, params.id, body),
    })),
    defineOperation(operationById('deleteIntegration'), async ({ params }, call) => {
      await deleteIntegration(deps, call, params.id);
      return {};
    }),
    defineOperation(operationById('reportIntegrationHealth'), async ({ params, body }, call) => ({
      body: await reportHealth(deps, call, params.id, body),
    })),
    defineOperation(operationById('listAssignments'), async ({ params, query }, call, reply) => ({
      body: await listAssignments(deps, call, params.id, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('putAssignment'), async ({ params }, call) => ({
      body: await putAssignment(deps, call, params.id, params.entityId),
    })),
    defineOperation(operationById('deleteAssignment'), async ({ params }, call) => {
      await deleteAssignment(deps, call, params.id, params.entityId);
      return {};
    }),
    defineOperation(operationById('reportAssignmentSync'), async ({ params, body }, call) => ({
      body: await reportAssignmentSync(deps, call, params.id, params.entityId, body),
    })),
  ];
}
