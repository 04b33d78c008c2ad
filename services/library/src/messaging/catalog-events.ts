import {
  startEventConsumer,
  type EventConsumer,
  type EventConsumerConfig,
  type Logger,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import { applyCatalogEvent, type ProjectionDeps } from '../domain/projection.js';

/**
 * Follows every event of the catalog product (`<prefix>.events.catalog.>`: entities, versions,
 * markers, files, analyses) with one durable consumer, so the events of an entity are applied in
 * stream order; each is applied idempotently (decision 0102).
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
  });
}
