import { consumeEvents, type EventConsumerConfig, type ServiceRuntime } from '@catalog/platform';
import { applyCatalogEvent, applyCatalogEventLanes, applyCatalogEvents, laneOfEvent, type ProjectionDeps } from '../domain/projection.js';
import type { LibraryDb } from '../persistence/tables.js';
import { checkCatalogEvent } from './event-check.js';
import { followInLanes } from './lanes/fair-lanes.js';
import type { LaneSettings } from './lanes/lane-settings.js';

/** The durable consumer's settings and the widths of its lanes. */
export type CatalogEventsConfig = EventConsumerConfig & Pick<LaneSettings, 'concurrency' | 'slotsPerTenant' | 'lanesPerBatch'>;

/**
 * Follows every event of the catalog product (`<prefix>.events.catalog.>`: entities, versions,
 * markers, files, analyses) with one durable consumer, in the library's lanes; the events of an
 * entity are applied in stream order, each idempotently (decision 0102), those of different entities concurrently
 * (`config.concurrency` at most), those of an entity that waited together as one refresh
 * (decision 0106), and up to `config.lanesPerBatch` entities of a tenant waiting for a slot
 * together (decision 0111). Tenants take turns for the slots, one tenant's entities holding at most
 * `config.slotsPerTenant` of them; an event whose data does not match its schema is refused, and a
 * failing one waits without its slot and is parked after its attempts (decision 0114). It stops
 * with the service.
 */
export function followCatalogEvents(runtime: ServiceRuntime<LibraryDb>, deps: ProjectionDeps, config: CatalogEventsConfig): void {
  const { concurrency, slotsPerTenant, lanesPerBatch, ...consumer } = config;
  const lanes: LaneSettings = {
    concurrency,
    slotsPerTenant,
    lanesPerBatch,
    laneOf: laneOfEvent,
    handleMany: async (events) => {
      for (const { event } of events) checkCatalogEvent(event);
      return applyCatalogEvents(deps, events);
    },
    handleLanes: async (batch) => {
      for (const lane of batch) for (const { event } of lane) checkCatalogEvent(event);
      return applyCatalogEventLanes(deps, batch);
    },
  };
  consumeEvents(runtime, {
    ...consumer,
    filterSubject: runtime.subjects.events('catalog', '>'),
    handle: async (event, position) => {
      checkCatalogEvent(event);
      return applyCatalogEvent(deps, event, position);
    },
    follow: (session) => followInLanes(session, lanes),
  });
}
