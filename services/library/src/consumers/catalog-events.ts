import { consumeEvents, type BusEvent, type EventConsumerConfig, type EventPosition, type ServiceRuntime } from '@catalog/platform';
import {
  applyCatalogEvent,
  applyCatalogEventLanes,
  applyCatalogEvents,
  laneOfEvent,
  type ProjectionDeps,
  type ProjectionOutcome,
} from '../domain/projection.js';
import type { Subscribers } from '../domain/subscribers.js';
import type { LibraryDb } from '../persistence/tables.js';
import { checkCatalogEvent } from './event-check.js';
import { expressSession, type BusyTenants } from './express-lane.js';
import { followInLanes } from './lanes/fair-lanes.js';
import type { LaneSettings } from './lanes/lane-settings.js';

/** The projection and whom it projects for. */
export interface CatalogEventsDeps extends ProjectionDeps {
  subscribers: Pick<Subscribers, 'active'>;
}

type LaneItems = ReadonlyArray<{ event: BusEvent }>;

/**
 * Applies the lanes of the tenants that subscribe to the library; the others' lanes are skipped
 * ('ignored', acked): no catalog reads, no tracks, no events for them (decision 0149).
 */
async function forSubscribers<L extends LaneItems>(
  deps: CatalogEventsDeps,
  lanes: readonly L[],
  apply: (lanes: L[]) => Promise<ProjectionOutcome[]>,
): Promise<ProjectionOutcome[]> {
  const tenants = [...new Set(lanes.flatMap((lane) => lane.slice(0, 1).map(({ event }) => event.tenantId)))];
  const active = new Set<string>();
  for (const tenantId of tenants) if (await deps.subscribers.active(tenantId)) active.add(tenantId);
  const applied = lanes.filter((lane) => lane[0] !== undefined && active.has(lane[0].event.tenantId));
  const outcomes = applied.length > 0 ? await apply(applied) : [];
  return lanes.map((lane) => {
    const at = applied.indexOf(lane);
    return at === -1 ? 'ignored' : outcomes[at]!;
  });
}

/** The durable consumer's settings and the widths of its lanes. */
export type CatalogEventsConfig = EventConsumerConfig & Pick<LaneSettings, 'concurrency' | 'slotsPerTenant' | 'lanesPerBatch'>;

/**
 * Follows every event of the catalog product of the library's subscribers (`<prefix>.events.catalog.>`: entities, versions,
 * markers, files, analyses) with one durable consumer, in the library's lanes; the events of an
 * entity are applied in stream order, each idempotently (decision 0102), those of different entities concurrently
 * (`config.concurrency` at most), those of an entity that waited together as one refresh
 * (decision 0106), and up to `config.lanesPerBatch` entities of a tenant waiting for a slot
 * together (decision 0111). Tenants take turns for the slots, one tenant's entities holding at most
 * `config.slotsPerTenant` of them; an event whose data does not match its schema is refused, and a
 * failing one waits without its slot and is parked after its attempts (decision 0114). It stops
 * with the service.
 */
export function followCatalogEvents(runtime: ServiceRuntime<LibraryDb>, deps: CatalogEventsDeps, config: CatalogEventsConfig): void {
  const { concurrency, slotsPerTenant, lanesPerBatch, ...consumer } = config;
  const lanes = projectionLanes(deps, { concurrency, slotsPerTenant, lanesPerBatch });
  consumeEvents(runtime, {
    ...consumer,
    filterSubject: runtime.subjects.events('catalog', '>'),
    handle: (event, position) => applyForSubscriber(deps, event, position),
    follow: (session) => followInLanes(session, lanes),
  });
}

/** One event, applied when its tenant subscribes to the library. */
async function applyForSubscriber(deps: CatalogEventsDeps, event: BusEvent, position: EventPosition): Promise<ProjectionOutcome> {
  checkCatalogEvent(event);
  return (await deps.subscribers.active(event.tenantId)) ? applyCatalogEvent(deps, event, position) : 'ignored';
}

/**
 * The express path beside the main consumer (decision 0150): a durable consumer of its own that
 * starts at the stream's head and applies, in the same lanes, only the entity events of tenants
 * that are not busy (`busy`); it acknowledges the rest at once, which the main consumer applies.
 * Applying an event twice changes nothing (entity positions, decision 0102), so a quiet tenant's
 * new entity reaches its library while another tenant's large import is still being projected. A
 * failure here is left to the main consumer (logged, nothing parked).
 */
export function followCatalogEventsExpress(
  runtime: ServiceRuntime<LibraryDb>,
  deps: CatalogEventsDeps,
  config: CatalogEventsConfig & { busy: BusyTenants },
): void {
  const { concurrency, slotsPerTenant, lanesPerBatch, busy, ...consumer } = config;
  const lanes = projectionLanes(deps, { concurrency, slotsPerTenant, lanesPerBatch });
  consumeEvents(runtime, {
    ...consumer,
    fromNewEvents: true,
    filterSubject: runtime.subjects.events('catalog', '>'),
    handle: async (event, position) => {
      try {
        return await applyForSubscriber(deps, event, position);
      } catch (error) {
        runtime.logger.debug({ err: error, id: event.id }, 'the express path left an event to the main projection');
        return 'ignored';
      }
    },
    follow: (session) => followInLanes(expressSession(session, busy), lanes),
  });
}

/** The projection's lanes: an entity's events in stream order, together; several entities of a tenant in one refresh. */
function projectionLanes(
  deps: CatalogEventsDeps,
  widths: Pick<LaneSettings, 'concurrency' | 'slotsPerTenant' | 'lanesPerBatch'>,
): LaneSettings {
  const { concurrency, slotsPerTenant, lanesPerBatch } = widths;
  return {
    concurrency,
    slotsPerTenant,
    lanesPerBatch,
    laneOf: laneOfEvent,
    handleMany: async (events) => {
      for (const { event } of events) checkCatalogEvent(event);
      const [outcome] = await forSubscribers(deps, [events], async ([lane]) => [await applyCatalogEvents(deps, lane!)]);
      return outcome;
    },
    handleLanes: async (batch) => {
      for (const lane of batch) for (const { event } of lane) checkCatalogEvent(event);
      return forSubscribers(deps, batch, (lanes) => applyCatalogEventLanes(deps, lanes));
    },
  };
}
