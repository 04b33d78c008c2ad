import type { JsMsg } from '@nats-io/jetstream';
import type { BackoffOptions } from '../support/backoff.js';
import type { Logger } from '../observability/logger.js';
import type { MetricsRegistry } from '../observability/metrics.js';
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
  /**
   * A consumer created now starts at the stream's next message instead of its first (one that
   * serves the present only, beside another that applies everything; decision 0150).
   */
  fromNewEvents?: boolean;
}

/** A message of the events stream as a consumer's session delivers it. */
export type ConsumerMessage = JsMsg;

/**
 * One session of a durable consumer, for a `follow` that orders its messages itself (the
 * library's lanes, say): the messages as they arrive (ended when the session is), and the ways to
 * settle each one, every message exactly once.
 */
export interface ConsumerSession {
  messages: AsyncIterable<ConsumerMessage>;
  /** The incarnation of the events stream (a message's position: this and its `seq`). */
  stream: string;
  /** Aborted when the session ends: what is not settled by then is handed back (nak'ed). */
  signal: AbortSignal;
  log: Logger;
  /**
   * One attempt at a message through `handle`: null once it is settled (acked, parked and
   * terminated, or nak'ed as the session ended), else the wait before the next attempt, which the
   * caller decides where to spend (decision 0114).
   */
  attempt(msg: ConsumerMessage): Promise<number | null>;
  /** A message applied by other means (with others, committed): acknowledged, its failed attempts forgotten. */
  applied(msg: ConsumerMessage): void;
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
   * Takes each session's messages itself (in an order of its own, concurrently), settling each
   * through the session; resolves once all are settled. Without it, every event is handled in
   * stream order, one at a time.
   */
  follow?(session: ConsumerSession): Promise<void>;
  /** Pacing of retries (default: 100 ms doubling to 5 s, with jitter). */
  retry?: BackoffOptions;
  metrics?: MetricsRegistry;
}
