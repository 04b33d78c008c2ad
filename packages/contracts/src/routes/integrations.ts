import {
  Assignment,
  AssignmentParams,
  CreateIntegrationBody,
  Integration,
  IntegrationParams,
  ListAssignmentsQuery,
  ListIntegrationsQuery,
  ReportHealthBody,
  ReportSyncBody,
  UpdateIntegrationBody,
} from '../schemas/integrations.js';
import { Page } from '../schemas/common.js';
import { catalogApi, type RouteDefinition } from './types.js';

const IntegrationsPath = '/api/v1/catalog/integrations';
const IntegrationPath = `${IntegrationsPath}/{id}`;
const AssignmentPath = `${IntegrationPath}/assignments/{entityId}`;

const integration = {
  tag: 'Integrations',
  service: 'catalog',
  auth: catalogApi,
} as const;

/** Integrations, their assignments and health (decisions 0132, 0133), answered by the catalog service. */
export const integrationRoutes = [
  {
    ...integration,
    operationId: 'createIntegration',
    method: 'POST',
    path: IntegrationsPath,
    summary: 'Connect an external system (a playout system: kind playout); its name is the source system its API keys are bound to',
    idempotent: true,
    body: CreateIntegrationBody,
    success: { status: 201, description: 'the integration', schema: Integration },
    // 409 integration_name_in_use, too_many_integrations
    errors: [400, 409],
  },
  {
    ...integration,
    operationId: 'listIntegrations',
    method: 'GET',
    path: IntegrationsPath,
    // The library's rebuild walks the integrations to read their assignments (decision 0142).
    alsoCalledBy: ['library'],
    summary: 'List the integrations of the tenant, oldest first (keyset pagination), each with its health and assignment counts',
    query: ListIntegrationsQuery,
    success: { status: 200, description: 'a page of integrations', schema: Page('integrations', Integration) },
    errors: [400],
  },
  {
    ...integration,
    operationId: 'getIntegration',
    method: 'GET',
    path: IntegrationPath,
    summary: 'Read an integration: its health (down by itself once a heartbeat is missed) and how many assignments are in each sync state',
    params: IntegrationParams,
    resources: { id: 'integration' },
    success: { status: 200, description: 'the integration', schema: Integration },
    errors: [404],
  },
  {
    ...integration,
    operationId: 'updateIntegration',
    method: 'PATCH',
    path: IntegrationPath,
    summary: 'Rename an integration (rebind its API keys to the new name), change its system or heartbeat',
    params: IntegrationParams,
    resources: { id: 'integration' },
    body: UpdateIntegrationBody,
    success: { status: 200, description: 'the integration after the change', schema: Integration },
    errors: [400, 404, 409],
  },
  {
    ...integration,
    operationId: 'deleteIntegration',
    method: 'DELETE',
    path: IntegrationPath,
    summary: 'Disconnect an integration, with its assignments (assignment.deleted for each)',
    params: IntegrationParams,
    resources: { id: 'integration' },
    success: { status: 204, description: 'deleted' },
    errors: [404],
  },
  {
    ...integration,
    operationId: 'reportIntegrationHealth',
    method: 'POST',
    path: `${IntegrationPath}/health`,
    summary: 'A connector reports its health; every report is also its heartbeat',
    params: IntegrationParams,
    resources: { id: 'integration' },
    body: ReportHealthBody,
    success: { status: 200, description: 'the integration with its health', schema: Integration },
    errors: [400, 404],
  },
  {
    ...integration,
    operationId: 'listAssignments',
    method: 'GET',
    path: `${IntegrationPath}/assignments`,
    // The library's rebuild restores the assignments it lacks (decision 0142).
    alsoCalledBy: ['library'],
    summary: 'The entities a playout integration carries, oldest assignment first, optionally of one sync state (keyset pagination)',
    params: IntegrationParams,
    resources: { id: 'integration' },
    query: ListAssignmentsQuery,
    success: { status: 200, description: 'a page of assignments', schema: Page('assignments', Assignment) },
    errors: [400, 404],
  },
  {
    ...integration,
    operationId: 'putAssignment',
    method: 'PUT',
    path: AssignmentPath,
    summary:
      'Assign an entity to a playout integration (pending until the connector reports it synced); assigning it again changes nothing',
    params: AssignmentParams,
    resources: { id: 'integration', entityId: 'entity' },
    success: { status: 200, description: 'the assignment', schema: Assignment },
    // 409 not_a_playout_integration
    errors: [404, 409],
  },
  {
    ...integration,
    operationId: 'deleteAssignment',
    method: 'DELETE',
    path: AssignmentPath,
    summary: 'Remove an entity from a playout integration',
    params: AssignmentParams,
    resources: { id: 'integration', entityId: 'entity' },
    success: { status: 204, description: 'removed (or it was not assigned)' },
    errors: [404],
  },
  {
    ...integration,
    operationId: 'reportAssignmentSync',
    method: 'POST',
    path: `${AssignmentPath}/sync`,
    summary:
      'A connector reports the sync of an assigned entity: synced (with the versions it took and its externalId) or failed (with its error); a report of a version no longer primary leaves it pending',
    params: AssignmentParams,
    resources: { id: 'integration', entityId: 'entity' },
    body: ReportSyncBody,
    success: { status: 200, description: 'the assignment after the report (read syncState: pending means sync again)', schema: Assignment },
    // 404 also when the entity is not assigned to the integration
    errors: [400, 404],
  },
] as const satisfies readonly RouteDefinition[];
