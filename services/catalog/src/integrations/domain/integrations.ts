/**
 * Integrations (decision 0132): the external systems a tenant connects. The name is free text,
 * unique per tenant; the source system (given, or derived from the name, decision 0160), also
 * unique, is what the admin area binds the integration's API keys to, so their writes carry it as
 * `sourceSystem`. Each write commits with its event.
 */
import { INTEGRATION_FIELDS, isReservedSourceSystem } from '@catalog/contracts';
import type { CreateIntegrationBody, Integration, IntegrationField, UpdateIntegrationBody } from '@catalog/contracts';
import {
  afterId,
  badRequest,
  conflict,
  executeWithEvents,
  idPage,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  outboxFor,
  type AppError,
  type CallContext,
  type Kysely,
  type OutboxEvent,
} from '@catalog/platform';
import { deleteAssignmentsQuery, lockAssignmentsOfIntegration } from '../persistence/assignments.js';
import {
  assignmentCountsOf,
  countIntegrations,
  deleteIntegrationQuery,
  findIntegration,
  insertIntegrationQuery,
  INTEGRATION_SOURCE_SYSTEM_UNIQUE_INDEX,
  INTEGRATION_NAME_UNIQUE_INDEX,
  listIntegrationRows,
  updateIntegrationRow,
  type IntegrationChanges,
  type IntegrationRecord,
} from '../persistence/integrations.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { isUniqueViolation } from '../../persistence/unique-violation.js';

import { recordLapse } from './integration-lapse.js';
import { sourceSystemOf } from './source-system-slug.js';
import { integrationView } from './integration-view.js';

export interface IntegrationDeps {
  db: Kysely<CatalogDb>;
}

/** Most integrations a tenant may have: each primary change of an entity visits its assignments (one per integration at most). */
export const MAX_INTEGRATIONS_PER_TENANT = 50;
/** Assignments deleted (and their events recorded) per statement when their integration goes. */
const DELETE_CHUNK = 1000;
const DEFAULT_PAGE_SIZE = 50;

export const integrationNotFound = (): AppError => notFound('integration');

/**
 * The source system a new integration's keys write as: the one given, else derived from its name.
 * 400 reserved_name for a source system of the platform's (its keys' writes would claim to be the
 * platform's, decision 0149); 400 invalid_source_system when none can be derived.
 */
function sourceSystemFor(input: CreateIntegrationBody): string {
  const sourceSystem = input.sourceSystem ?? sourceSystemOf(input.name);
  if (sourceSystem === null) {
    throw badRequest('invalid_source_system', 'the name has no letter or digit to derive a source system from: give sourceSystem', {
      name: input.name,
    });
  }
  if (isReservedSourceSystem(sourceSystem)) {
    throw badRequest('reserved_name', `${sourceSystem} is a source system of the platform and cannot be an integration's`, {
      sourceSystem,
    });
  }
  return sourceSystem;
}

/**
 * A write that may give an integration a name or a source system: 409 integration_name_in_use or
 * source_system_in_use for one the tenant's other integration has.
 */
async function guardName<T>(names: { name?: string | undefined; sourceSystem?: string }, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (names.name !== undefined && isUniqueViolation(error, INTEGRATION_NAME_UNIQUE_INDEX))
      throw conflict('integration_name_in_use', 'the tenant has another integration of this name', { name: names.name });
    if (names.sourceSystem !== undefined && isUniqueViolation(error, INTEGRATION_SOURCE_SYSTEM_UNIQUE_INDEX)) {
      throw conflict('source_system_in_use', 'the tenant has another integration of this source system', {
        sourceSystem: names.sourceSystem,
      });
    }
    throw error;
  }
}

/** Views of integration rows with their assignment counts (one more query). */
export async function integrationViews(db: Kysely<CatalogDb>, tenantId: string, rows: IntegrationRecord[]): Promise<Integration[]> {
  const counts = await assignmentCountsOf(
    db,
    tenantId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => integrationView(row, counts.get(row.id)!));
}

export async function createIntegration(deps: IntegrationDeps, call: CallContext, input: CreateIntegrationBody): Promise<Integration> {
  const id = newId();
  const context = { tenantId: call.tenantId, sourceSystem: call.sourceSystem };
  return inTenantScope(deps.db, call.tenantId, async (db) => {
    if ((await countIntegrations(db, call.tenantId)) >= MAX_INTEGRATIONS_PER_TENANT) {
      throw conflict('too_many_integrations', `a tenant has at most ${MAX_INTEGRATIONS_PER_TENANT} integrations`, {
        limit: MAX_INTEGRATIONS_PER_TENANT,
      });
    }
    const sourceSystem = sourceSystemFor(input);
    const row = { id, tenantId: call.tenantId, name: input.name, sourceSystem, kind: input.kind };
    const insert = insertIntegrationQuery(db, { ...row, system: input.system ?? null, heartbeatSeconds: input.heartbeatSeconds ?? null });
    const event: OutboxEvent = { type: 'integration.created', resourceId: id, dmrn: null, data: { name: input.name, kind: input.kind } };
    const [created] = await guardName({ name: input.name, sourceSystem }, () => executeWithEvents(db, 'catalog', context, insert, [event]));
    return integrationView(created!, { pending: 0, synced: 0, failed: 0 });
  });
}

export async function listIntegrations(
  deps: IntegrationDeps,
  call: CallContext,
  query: { limit?: number | undefined; after?: string | undefined },
  maxBytes: number,
): Promise<{ integrations: Integration[]; nextCursor: string | null; hasMore: boolean }> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const views = await inTenantScope(deps.db, call.tenantId, async (db) =>
    integrationViews(db, call.tenantId, await listIntegrationRows(db, call.tenantId, { afterId: afterId(query.after), limit: limit + 1 })),
  );
  const { items, nextCursor, hasMore } = idPage(views, limit, maxBytes, (integration) => integration.id);
  return { integrations: items, nextCursor, hasMore };
}

export async function getIntegration(deps: IntegrationDeps, call: CallContext, id: string): Promise<Integration> {
  return inTenantScope(deps.db, call.tenantId, async (db) => {
    const row = await findIntegration(db, call.tenantId, id);
    if (!row) throw integrationNotFound();
    return (await integrationViews(db, call.tenantId, [row]))[0]!;
  });
}

/** What of a PATCH differs from the row: the changes to write and the fields they name. */
function changesOf(current: IntegrationRecord, patch: UpdateIntegrationBody): { changes: IntegrationChanges; fields: IntegrationField[] } {
  const changes: IntegrationChanges = {};
  if (patch.name !== undefined && patch.name !== current.name) changes.name = patch.name;
  if (patch.system !== undefined && patch.system !== current.system) changes.system = patch.system;
  if (patch.heartbeatSeconds !== undefined && patch.heartbeatSeconds !== current.heartbeat_seconds) {
    changes.heartbeatSeconds = patch.heartbeatSeconds;
  }
  return { changes, fields: INTEGRATION_FIELDS.filter((field) => field in changes) };
}

/** Applies a PATCH; one that changes nothing writes nothing (no event, `updatedAt` stays). */
export async function updateIntegration(
  deps: IntegrationDeps,
  call: CallContext,
  id: string,
  patch: UpdateIntegrationBody,
): Promise<Integration> {
  return guardName({ name: patch.name }, () =>
    inTenantTransaction(deps.db, call.tenantId, async (trx) => {
      const current = await findIntegration(trx, call.tenantId, id, { lock: 'update' });
      if (!current) throw integrationNotFound();
      // A lapse not recorded yet is recorded before a new heartbeat could hide it (decision 0133).
      if (current.lapsed && current.health_status !== 'down' && patch.heartbeatSeconds !== undefined) await recordLapse(trx, current);
      const { changes, fields } = changesOf(current, patch);
      if (fields.length === 0) return (await integrationViews(trx, call.tenantId, [current]))[0]!;
      const row = await updateIntegrationRow(trx, call.tenantId, id, changes);
      await outboxFor(trx, 'catalog', call).record({
        type: 'integration.updated',
        resourceId: id,
        dmrn: null,
        data: { changedFields: fields },
      });
      return (await integrationViews(trx, call.tenantId, [row]))[0]!;
    }),
  );
}

/**
 * Deletes an integration with its assignments, each with its assignment.deleted event (reason
 * integration_deleted), then integration.deleted: one transaction, one batch id, the assignments
 * in statements of `DELETE_CHUNK` each.
 */
export async function deleteIntegration(deps: IntegrationDeps, call: CallContext, id: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const outbox = outboxFor(trx, 'catalog', call);
    if (!(await findIntegration(trx, call.tenantId, id, { lock: 'update' }))) throw integrationNotFound();
    for (let afterId: string | undefined; ;) {
      const rows = await lockAssignmentsOfIntegration(trx, call.tenantId, id, { afterId, limit: DELETE_CHUNK });
      if (rows.length === 0) break;
      const events = rows.map((row): OutboxEvent => ({
        type: 'assignment.deleted',
        resourceId: row.id,
        dmrn: row.dmrn,
        data: { integrationId: id, entityId: row.entity_id, reason: 'integration_deleted' },
      }));
      const ids = rows.map((row) => row.id);
      await deleteAssignmentsQuery(trx, call.tenantId, ids).execute();
      await outbox.recordAll(events);
      afterId = ids[ids.length - 1];
    }
    await deleteIntegrationQuery(trx, call.tenantId, id).execute();
    await outbox.record({ type: 'integration.deleted', resourceId: id, dmrn: null, data: {} });
  });
}
