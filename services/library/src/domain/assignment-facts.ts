import type { BusEvent } from '@catalog/platform';
import type { AssignmentFacts } from '../persistence/assignments.js';

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The sync state each assignment event leaves its assignment in (null: removed). */
function stateAfter(event: BusEvent): string | null | undefined {
  if (event.type === 'assignment.created') return 'pending';
  if (event.type === 'assignment.deleted') return null;
  if (event.type === 'assignment.sync_state_changed') return str(event.data.state) ?? undefined;
  return undefined;
}

/** What an assignment event of the catalog says for the library's filters (decision 0132), or null for other events. */
export function assignmentFactsOf(event: BusEvent): AssignmentFacts | null {
  if (event.resourceKind !== 'assignment') return null;
  const integrationId = str(event.data.integrationId);
  const entityId = str(event.data.entityId);
  const syncState = stateAfter(event);
  if (integrationId === null || entityId === null || syncState === undefined) return null;
  return { integrationId, entityId, syncState };
}
