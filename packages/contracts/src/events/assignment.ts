import { Type } from '@sinclair/typebox';
import { Uuid } from '../schemas/common.js';
import { SyncStateSchema } from '../schemas/integrations.js';
import type { EventTypeDefinition } from './types.js';

/** Why an assignment went away. */
export const ASSIGNMENT_DELETE_REASONS = ['unassigned', 'entity_deleted', 'integration_deleted'] as const;
export type AssignmentDeleteReason = (typeof ASSIGNMENT_DELETE_REASONS)[number];

/** Why an assignment became pending again. */
export const PENDING_REASONS = ['primary_changed', 'stale_report'] as const;
export type PendingReason = (typeof PENDING_REASONS)[number];

const ids = { integrationId: Uuid, entityId: Uuid };

/**
 * Events of the external playout sync and assignments family (resourceId: the assignment; dmrn:
 * the entity's). Payloads hold ids and small facts; the assignment is read from its listing.
 */
export const assignmentEvents = [
  {
    type: 'assignment.created',
    product: 'catalog',
    resourceKind: 'assignment',
    schemaVersion: 1,
    description: 'An entity was assigned to a playout integration; a new assignment is pending.',
    data: Type.Object(ids),
  },
  {
    type: 'assignment.deleted',
    product: 'catalog',
    resourceKind: 'assignment',
    schemaVersion: 1,
    description: 'An assignment was removed: on its own, with its entity or with its integration (`reason`).',
    data: Type.Object({ ...ids, reason: Type.Union(ASSIGNMENT_DELETE_REASONS.map((r) => Type.Literal(r))) }),
  },
  {
    type: 'assignment.sync_state_changed',
    product: 'catalog',
    resourceKind: 'assignment',
    schemaVersion: 1,
    description:
      "The sync state of an assignment changed. `versionIds`: for synced and failed the versions the connector reported, for pending the entity's primary versions now (to sync). `reason`: for pending primary_changed (recorded in the transaction of the version change) or stale_report (a report named a version no longer primary); for failed the connector's error; null for synced.",
    data: Type.Object({
      ...ids,
      state: SyncStateSchema,
      previous: SyncStateSchema,
      versionIds: Type.Array(Uuid),
      reason: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
    }),
  },
] as const satisfies readonly EventTypeDefinition[];
