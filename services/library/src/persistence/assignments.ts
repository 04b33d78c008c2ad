import { sql, type EventPosition, type Transaction } from '@catalog/platform';
import type { LibraryDb } from './tables.js';

/** What an assignment event says (decision 0132): its integration, entity and sync state now (null: removed). */
export interface AssignmentFacts {
  integrationId: string;
  entityId: string;
  syncState: string | null;
}

/** Records what an assignment event says, unless a later event of that assignment was applied already. */
export async function recordAssignmentState(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  facts: AssignmentFacts,
  position: EventPosition,
): Promise<void> {
  await sql`
    insert into library.assignments (tenant_id, integration_id, entity_id, sync_state, stream, seq)
    values (${tenantId}::uuid, ${facts.integrationId}::uuid, ${facts.entityId}::uuid, ${facts.syncState}, ${position.stream},
            ${String(position.seq)}::bigint)
    on conflict (tenant_id, integration_id, entity_id) do update
       set sync_state = excluded.sync_state, stream = excluded.stream, seq = excluded.seq
     where library.assignments.stream <> excluded.stream or library.assignments.seq < excluded.seq`.execute(trx);
}

/**
 * The position of an assignment row the rebuild restored (decision 0142): of no stream, so the
 * next event of that assignment replaces it, whatever its sequence.
 */
export const RESTORED_POSITION: EventPosition = { stream: 'rebuild', seq: 0 };

/**
 * Adds the assignments the catalog listed that the library has no row of (the rebuild, decision
 * 0142), in one statement: a row an event wrote, removed or not, stays as its events left it.
 */
export async function addMissingAssignments(
  trx: Transaction<LibraryDb>,
  tenantId: string,
  rows: ReadonlyArray<AssignmentFacts & { syncState: string }>,
): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into library.assignments (tenant_id, integration_id, entity_id, sync_state, stream, seq)
    select ${tenantId}::uuid, a.integration_id, a.entity_id, a.sync_state, ${RESTORED_POSITION.stream},
           ${String(RESTORED_POSITION.seq)}::bigint
      from unnest(${rows.map((r) => r.integrationId)}::uuid[], ${rows.map((r) => r.entityId)}::uuid[],
                  ${rows.map((r) => r.syncState)}::text[]) as a(integration_id, entity_id, sync_state)
     order by a.integration_id, a.entity_id
    on conflict (tenant_id, integration_id, entity_id) do nothing`.execute(trx);
}
