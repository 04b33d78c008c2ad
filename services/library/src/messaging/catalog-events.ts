import {
  startEventConsumer,
  type EventConsumer,
  type EventConsumerConfig,
  type Logger,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import { applyCatalogEvent, applyCatalogEvents, laneOfEvent, type ProjectionDeps } from '../domain/projection.js';

/**
 * Follows every event of the catalog product (`<prefix>.events.catalog.>`: entities, versions,
 * markers, files, analyses) with one durable consumer; the events of an entity are applied in
 * stream order, each idempotently (decision 0102), those of different entities concurrently
 * (`concurrency` at most), and those of an entity that waited together as one refresh (decision 0106).
 */
export function followCatalogEvents(
  deps: ProjectionDeps & { nc: NatsConnection; subjects: Subjects; logger: Logger; config: EventConsumerConfig },
): EventConsumer {
  return startEventConsumer({
    nc: deps.nc,
    subjects: deps.subjects,
    logger: deps.logger,
    ...deps.config,
    filterSubject: deps.subjects.events('catalog', '>'),
    handle: (event, position) => applyCatalogEvent(deps, event, position),
    laneOf: laneOfEvent,
    handleMany: (events) => applyCatalogEvents(deps, events),
  });
}
