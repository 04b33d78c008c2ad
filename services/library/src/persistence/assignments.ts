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
