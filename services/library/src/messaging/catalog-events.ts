import { consumeEvents, type EventConsumerConfig, type ServiceRuntime } from '@catalog/platform';
import { applyCatalogEvent, applyCatalogEventLanes, applyCatalogEvents, laneOfEvent, type ProjectionDeps } from '../domain/projection.js';
import type { LibraryDb } from '../persistence/tables.js';

/**
 * Follows every event of the catalog product (`<prefix>.events.catalog.>`: entities, versions,
 * markers, files, analyses) with one durable consumer; the events of an entity are applied in
 * stream order, each idempotently (decision 0102), those of different entities concurrently
 * (`config.concurrency` at most), those of an entity that waited together as one refresh
 * (decision 0106), and up to `config.lanesPerBatch` entities waiting for a slot together (decision
 * 0111). It stops with the service.
 */
export function followCatalogEvents(runtime: ServiceRuntime<LibraryDb>, deps: ProjectionDeps, config: EventConsumerConfig): void {
  consumeEvents(runtime, {
    ...config,
    filterSubject: runtime.subjects.events('catalog', '>'),
    handle: (event, position) => applyCatalogEvent(deps, event, position),
    laneOf: laneOfEvent,
    handleMany: (events) => applyCatalogEvents(deps, events),
    handleLanes: (lanes) => applyCatalogEventLanes(deps, lanes),
  });
}
