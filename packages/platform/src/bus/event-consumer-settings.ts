import type { BackoffOptions } from '../backoff.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import type { NatsConnection } from './connect.js';
import type { BusEvent } from './event-message.js';
import type { Subjects } from './subjects.js';

/** Where a message stands: the incarnation of the events stream (its creation time) and its stream sequence. */
export interface EventPosition {
  stream: string;
  seq: number;
}

/** The durable consumer's settings a service reads from its environment. */
export interface EventConsumerConfig {
  /** Durable consumer name on the events stream (shared by the service's replicas). */
  durable: string;
  ackWaitMs: number;
  maxAckPending: number;
  /** Attempts at an event its handler rejects before it is parked in the dead letters (default 5). */
  maxAttempts?: number;
  /**
   * Transient failures of an event, counted while other events are applied, before it is parked
   * (default 20; decision 0114). While nothing else is applied (a dependency away for all), never.
   */
  maxTransientAttempts?: number;
  /** With `laneOf`: lanes applied at once at most (default 1). */
  concurrency?: number;
  /** With `laneOf`: slots the lanes of one tenant hold at once at most (default `concurrency`; decision 0114). */
  slotsPerTenant?: number;
  /** With `handleLanes`: lanes waiting for a slot that one slot takes together at most (default 1). */
  lanesPerBatch?: number;
}

export interface EventConsumerSettings extends EventConsumerConfig {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** The events it follows, e.g. `<prefix>.events.catalog.asset.>`. */
  filterSubject: string;
  /** Applies one event in a transaction of its own; resolves once committed. */
  handle(event: BusEvent, position: EventPosition): Promise<unknown>;
  /**
   * The lane of an event (an entity, say). When given, events of one lane are applied in stream
   * order and those of different lanes concurrently (`concurrency` lanes at most); without it,
   * every event in stream order, one at a time.
   */
  laneOf?(event: BusEvent): string;
  /**
   * Applies the events of one lane that waited together (stream order) as one, committed at once;
   * when it throws they are applied one by one through `handle` (retries, dead letters).
   */
  handleMany?(events: Array<{ event: BusEvent; position: EventPosition }>): Promise<unknown>;
  /**
   * Applies the waiting events of several lanes (each in stream order) as one, committed at once;
   * when it throws, each lane is applied on its own (`handleMany`, then `handle`).
   */
  handleLanes?(lanes: Array<Array<{ event: BusEvent; position: EventPosition }>>): Promise<unknown>;
  /** Pacing of retries (default: 100 ms doubling to 5 s, with jitter). */
  retry?: BackoffOptions;
  metrics?: MetricsRegistry;
}
