import { analysisEvents } from './analysis.js';
import { assetEvents } from './asset.js';
import { assignmentEvents } from './assignment.js';
import { entityEvents } from './entity.js';
import { integrationEvents } from './integration.js';
import { jobEvents } from './job.js';
import { libraryEvents } from './library.js';
import { moleculeEvents } from './molecule.js';
import { relationEvents } from './relation.js';
import { versionEvents } from './version.js';
import type { Static } from '@sinclair/typebox';
import type { EventTypeDefinition } from './types.js';

export * from './types.js';
export { ENTITY_FIELDS, type EntityField } from './entity.js';
export * from './integration.js';
export { ASSIGNMENT_DELETE_REASONS, PENDING_REASONS, type AssignmentDeleteReason, type PendingReason } from './assignment.js';
export { MOLECULE_DELETE_REASONS, MOLECULE_FIELDS, type MoleculeDeleteReason, type MoleculeField } from './molecule.js';
export { TRACK_FIELDS, TRACK_REMOVAL_REASONS, type TrackField, type TrackRemovalReason } from './library.js';
export { VERSION_DELETE_REASONS, VERSION_FIELDS, type VersionField } from './version.js';

/**
 * Every event type the system records. Each family keeps its definitions in a file of its own
 * under events/; `docs/events.md` is generated from this list. The list keeps each definition's
 * own type (its type name and `data` schema), so `EventData` gives writers the contract's types.
 */
export const eventTypes = [
  ...entityEvents,
  ...assetEvents,
  ...versionEvents,
  ...analysisEvents,
  ...libraryEvents,
  ...jobEvents,
  ...moleculeEvents,
  ...relationEvents,
  ...integrationEvents,
  ...assignmentEvents,
] as const satisfies readonly EventTypeDefinition[];

/** One definition of the registry, with its own type name and `data` schema. */
export type RegisteredEventDefinition = (typeof eventTypes)[number];

/** The type of every registered event: `entity.created`, `track.updated`, … */
export type EventTypeName = RegisteredEventDefinition['type'];

/** The `data` of event type `T` as its registered schema defines it. */
export type EventData<T extends EventTypeName> = Static<Extract<RegisteredEventDefinition, { type: T }>['data']>;

/** Types reserved for later use: accepted by the feed's `types` filter, recorded by nobody yet. */
export const RESERVED_EVENT_TYPES = ['ping'] as const;

export function eventType(type: string): EventTypeDefinition {
  const definition = eventTypes.find((e) => e.type === type);
  if (!definition) throw new Error(`unregistered event type ${type}`);
  return definition;
}
