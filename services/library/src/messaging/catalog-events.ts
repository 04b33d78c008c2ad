import { consumeEvents, type EventConsumerConfig, type ServiceRuntime } from '@catalog/platform';
import { applyCatalogEvent, type ProjectionDeps } from '../domain/projection.js';
import type { LibraryDb } from '../persistence/tables.js';

/**
 * Follows every event of the catalog product (`<prefix>.events.catalog.>`: entities, versions,
 * markers, files, analyses) with one durable consumer, so the events of an entity are applied in
 * stream order; each is applied idempotently (decision 0102). It stops with the service.
 */
export function followCatalogEvents(runtime: ServiceRuntime<LibraryDb>, deps: ProjectionDeps, config: EventConsumerConfig): void {
  consumeEvents(runtime, {
    ...config,
    filterSubject: runtime.subjects.events('catalog', '>'),
    handle: (event, position) => applyCatalogEvent(deps, event, position),
  });
}
