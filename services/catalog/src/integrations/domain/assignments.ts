/**
 * Assignments (decision 0132): the entities a playout integration carries, each with its sync
 * state. A new assignment is pending; the connector reports it synced (the versions it took, its
 * externalId) or failed (its error); a report naming a version that is no longer primary leaves
 * it pending. Writes lock the integration (shared) then the entity, as version writes lock the
 * entity, so a report and a primary change of the same entity take turns.
 */
import type { Assignment, ListAssignmentsQuery, ReportSyncBody } from '@catalog/contracts';
import {
  afterId,
  badRequest,
  conflict,
  idPage,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  outboxFor,
  type CallContext,
  type Kysely,
  type Transaction,
} from '@catalog/platform';
import {
  deleteAssignmentsQuery,
  findAssignment,
  insertAssignmentQuery,
  listAssignmentRows,
  primaryVersionIdsOf,
  updateAssignments,
  type AssignmentRow,
} from '../persistence/assignments.js';
import type { EntityRow } from '../../persistence/entities.js';
import { findIntegration, type IntegrationRecord } from '../persistence/integrations.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { lockEntity } from '../../domain/entity-lock.js';

import { assignmentView } from './integration-view.js';
import { integrationNotFound } from './integrations.js';

export interface AssignmentDeps {
  db: Kysely<CatalogDb>;
}

const DEFAULT_PAGE_SIZE = 100;

/** The integration (404) and the entity (404, locked), in the order every assignment write takes them. */
async function lockPair(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  integrationId: string,
  entityId: string,
): Promise<{ integration: IntegrationRecord; entity: EntityRow }> {
  const integration = await findIntegration(trx, tenantId, integrationId, { lock: 'share' });
  if (!integration) throw integrationNotFound();
  return { integration, entity: await lockEntity(trx, tenantId, entityId) };
}

/** Assigns an entity to a playout integration: pending, with assignment.created; an existing assignment is answered as it is. */
export async function putAssignment(deps: AssignmentDeps, call: CallContext, integrationId: string, entityId: string): Promise<Assignment> {
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const { integration, entity } = await lockPair(trx, call.tenantId, integrationId, entityId);
    if (integration.kind !== 'playout') {
      throw conflict('not_a_playout_integration', 'only an integration of kind playout carries entities', { kind: integration.kind });
    }
    const existing = await findAssignment(trx, call.tenantId, integrationId, entityId);
    if (existing) return assignmentView(existing);
    const id = newId();
    const [row] = await insertAssignmentQuery(trx, { id, tenantId: call.tenantId, integrationId, entityId }).execute();
    await outboxFor(trx, 'catalog', call).record({
      type: 'assignment.created',
      resourceId: id,
      dmrn: entity.dmrn,
      data: { integrationId, entityId },
    });
    return assignmentView(row!);
  });
}

/** Removes an entity from an integration (assignment.deleted, reason unassigned); one not assigned changes nothing. */
export async function deleteAssignment(deps: AssignmentDeps, call: CallContext, integrationId: string, entityId: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const { entity } = await lockPair(trx, call.tenantId, integrationId, entityId);
    const existing = await findAssignment(trx, call.tenantId, integrationId, entityId, { forUpdate: true });
    if (!existing) return;
    await deleteAssignmentsQuery(trx, call.tenantId, [existing.id]).execute();
    await outboxFor(trx, 'catalog', call).record({
      type: 'assignment.deleted',
      resourceId: existing.id,
      dmrn: entity.dmrn,
      data: { integrationId, entityId, reason: 'unassigned' },
    });
  });
}

/** A page of an integration's assignments, oldest first, of one sync state when asked (404 for an unknown integration). */
export async function listAssignments(
  deps: AssignmentDeps,
  call: CallContext,
  integrationId: string,
  query: ListAssignmentsQuery,
  maxBytes: number,
): Promise<{ assignments: Assignment[]; nextCursor: string | null; hasMore: boolean }> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await inTenantScope(deps.db, call.tenantId, async (db) => {
    if (!(await findIntegration(db, call.tenantId, integrationId))) throw integrationNotFound();
    return listAssignmentRows(db, call.tenantId, {
      integrationId,
      syncState: query.syncState,
      afterId: afterId(query.after),
      limit: limit + 1,
    });
  });
  const { items, nextCursor, hasMore } = idPage(rows.map(assignmentView), limit, maxBytes, (assignment) => assignment.id);
  return { assignments: items, nextCursor, hasMore };
}

/** A failed report needs its error; a synced one has none. */
function checkReport(report: ReportSyncBody): void {
  if (report.state === 'failed' && report.error === undefined) {
    throw badRequest('invalid_report', 'a failed report needs error: the reason', { field: 'error' });
  }
  if (report.state === 'synced' && report.error !== undefined) {
    throw badRequest('invalid_report', 'a synced report takes no error', { field: 'error' });
  }
}

/**
 * A connector's report of one assigned entity. The versions it names (all of the entity's primary
 * versions when it names none) must all be primary now: then the assignment becomes synced or
 * failed as reported; else it stays or becomes pending (reason stale_report). A change of state
 * records assignment.sync_state_changed; the externalId is kept either way.
 */
export async function reportAssignmentSync(
  deps: AssignmentDeps,
  call: CallContext,
  integrationId: string,
  entityId: string,
  report: ReportSyncBody,
): Promise<Assignment> {
  checkReport(report);
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const { entity } = await lockPair(trx, call.tenantId, integrationId, entityId);
    const current = await findAssignment(trx, call.tenantId, integrationId, entityId, { forUpdate: true });
    if (!current) throw notFound('assignment');
    const primaries = await primaryVersionIdsOf(trx, call.tenantId, entityId);
    const reported = report.versionIds ?? primaries;
    const stale = reported.some((id) => !primaries.includes(id));
    const state = stale ? 'pending' : report.state;
    const changed = state !== current.sync_state;
    const [row] = await updateAssignments(trx, call.tenantId, [current.id], {
      syncState: state,
      changed,
      ...(stale ? {} : { versionIds: reported }),
      ...(report.externalId === undefined ? {} : { externalId: report.externalId }),
      error: state === 'failed' ? report.error! : null,
      synced: state === 'synced',
    });
    if (changed) {
      const reason = stale ? 'stale_report' : state === 'failed' ? report.error! : null;
      await outboxFor(trx, 'catalog', call).record({
        type: 'assignment.sync_state_changed',
        resourceId: current.id,
        dmrn: entity.dmrn,
        data: { integrationId, entityId, state, previous: current.sync_state, versionIds: stale ? primaries : reported, reason },
      });
    }
    return assignmentView(row as AssignmentRow);
  });
}
