import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../observability/logger.js';
import type { Subjects } from './subjects.js';

export type { JetStreamManager } from '@nats-io/jetstream';

const MS_TO_NS = 1_000_000;

export interface EventsStreamSettings {
  /** How long the stream keeps a message; the feed table, not the stream, is the 30-day record. */
  maxAgeMs?: number;
  /**
   * Window in which a repeated `Nats-Msg-Id` is dropped. It must cover the longest time a relay
   * can take to re-publish a row after a crash (read, publish, crash before marking, restart).
   */
  duplicateWindowMs?: number;
}

const EVENTS_STREAM_DEFAULTS = {
  maxAgeMs: 7 * 24 * 3600_000,
  duplicateWindowMs: 10 * 60_000,
} as const;

/** JetStream API error codes used here (nats-server `errors.json`). */
const STREAM_NAME_IN_USE = 10058;
const STREAM_NOT_FOUND = 10059;

export function isJetStreamApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}

/** The events stream is missing (never created, deleted, or the server lost its store). */
export function isStreamMissing(error: unknown): boolean {
  if (isJetStreamApiError(error, STREAM_NOT_FOUND)) return true;
  // A publish to a subject no stream captures is answered by nobody.
  const name = (error as { name?: string } | null)?.name;
  const message = (error as { message?: string } | null)?.message ?? '';
  return name === 'NoRespondersError' || /no responders/i.test(message);
}

/** Errors of a replica count the server cannot keep: not clustered, too few peers, not updatable. */
const REPLICA_ERRORS = [10074, 10005, 10023, 10061];

interface StreamReplicas {
  replicas: number;
  logger?: Logger;
}

/** The replica count of the streams a connection creates (decision 0131); 1 unless set. */
const streamReplicas = new WeakMap<NatsConnection, StreamReplicas>();

/**
 * Sets the replicas of every stream created or reconciled through `nc` (`JETSTREAM_REPLICAS`,
 * decision 0131); `logger` receives a line when an existing stream's count is changed.
 */
export function setStreamReplicas(nc: NatsConnection, replicas: number, logger?: Logger): void {
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) throw new Error(`stream replicas must be 1 to 5, not ${replicas}`);
  streamReplicas.set(nc, { replicas, ...(logger ? { logger } : {}) });
}

/** The replicas of the streams created through `nc`. */
export function streamReplicasOf(nc: NatsConnection): number {
  return streamReplicas.get(nc)?.replicas ?? 1;
}

export interface StreamWanted {
  name: string;
  /** The settings an existing stream is brought to (subjects, limits). */
  wanted: Partial<StreamConfig>;
  /** Set only when the stream is created (storage, retention). */
  created: Partial<StreamConfig>;
  /** Whether an existing stream's config already has `wanted` (the replica count is checked here). */
  matches: (config: StreamConfig) => boolean;
}

/**
 * Creates a stream or brings an existing one to `wanted` and the connection's replica count,
 * keeping its other settings. Idempotent and safe when several services start at once: whoever
 * loses the creation race updates instead. A replica count the server cannot keep (a single
 * server and more than one replica) fails with an error that names `JETSTREAM_REPLICAS`.
 */
export async function ensureStream(nc: NatsConnection, stream: StreamWanted): Promise<StreamInfo> {
  const jsm = await jetstreamManager(nc);
  const replicas = streamReplicasOf(nc);
  const current = await streamInfo(jsm, stream.name);
  if (!current) {
    try {
      return await jsm.streams.add({ name: stream.name, ...stream.created, ...stream.wanted, num_replicas: replicas });
    } catch (error) {
      if (!isJetStreamApiError(error, STREAM_NAME_IN_USE)) throw replicaError(error, stream.name, replicas);
      // Another service created it between our look-up and our add; converge on its config.
    }
  }
  const existing = current ?? (await jsm.streams.info(stream.name));
  const config = existing.config;
  if (stream.matches(config) && config.num_replicas === replicas) return existing;
  if (config.num_replicas !== replicas) {
    streamReplicas
      .get(nc)
      ?.logger?.warn(
        { stream: stream.name, from: config.num_replicas, to: replicas },
        'changing the replicas of a stream to JETSTREAM_REPLICAS',
      );
  }
  try {
    return await jsm.streams.update(stream.name, { ...config, ...stream.wanted, num_replicas: replicas });
  } catch (error) {
    throw replicaError(error, stream.name, replicas);
  }
}

function replicaError(error: unknown, name: string, replicas: number): unknown {
  if (replicas === 1 || !REPLICA_ERRORS.some((code) => isJetStreamApiError(error, code))) return error;
  const reason = (error as Error).message;
  return new Error(
    `JETSTREAM_REPLICAS=${replicas}: NATS cannot keep stream ${name} with ${replicas} replicas (${reason}); ` +
      'a single nats-server keeps 1, a JetStream cluster at most its number of servers',
    { cause: error },
  );
}

/**
 * Creates the events stream (`<PREFIX>_EVENTS` on `<prefix>.events.>`) or brings an existing one
 * to the expected limits and replica count (see `ensureStream`). File storage, limits retention,
 * and a duplicate window long enough for a relay to re-publish after a crash without the message
 * being stored twice.
 */
export async function ensureEventsStream(nc: NatsConnection, subjects: Subjects, settings: EventsStreamSettings = {}): Promise<StreamInfo> {
  const maxAge = (settings.maxAgeMs ?? EVENTS_STREAM_DEFAULTS.maxAgeMs) * MS_TO_NS;
  const duplicateWindow =
    Math.min(settings.duplicateWindowMs ?? EVENTS_STREAM_DEFAULTS.duplicateWindowMs, settings.maxAgeMs ?? Infinity) * MS_TO_NS;
  const wanted = {
    subjects: [subjects.eventsWildcard],
    max_age: maxAge,
    duplicate_window: duplicateWindow,
  };
  return ensureStream(nc, {
    name: subjects.eventsStream,
    wanted,
    created: { storage: StorageType.File, retention: RetentionPolicy.Limits, allow_direct: true },
    matches: (config) =>
      config.max_age === wanted.max_age &&
      config.duplicate_window === wanted.duplicate_window &&
      config.subjects?.length === 1 &&
      config.subjects[0] === subjects.eventsWildcard,
  });
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (error) {
    if (isJetStreamApiError(error, STREAM_NOT_FOUND)) return null;
    throw error;
  }
}

export interface DurableConsumerSettings {
  stream: string;
  durable: string;
  filterSubject?: string;
  ackWaitMs: number;
  maxAckPending: number;
  /** Start at the stream's next message when created (a deliver policy cannot change afterwards). */
  fromNewEvents?: boolean;
}

/**
 * Creates a durable pull consumer or updates the settings that may change (create-or-update);
 * it delivers every message of the stream from the first one (or, `fromNewEvents`, from the next
 * one), with explicit acks and unlimited redeliveries (an event is never dropped by the consumer).
 */
export async function ensureDurableConsumer(nc: NatsConnection, settings: DurableConsumerSettings): Promise<ConsumerInfo> {
  const jsm = await jetstreamManager(nc);
  const config: Partial<ConsumerConfig> = {
    durable_name: settings.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: settings.fromNewEvents ? DeliverPolicy.New : DeliverPolicy.All,
    ack_wait: settings.ackWaitMs * MS_TO_NS,
    max_ack_pending: settings.maxAckPending,
    max_deliver: -1,
    ...(settings.filterSubject ? { filter_subject: settings.filterSubject } : {}),
  };
  return jsm.consumers.add(settings.stream, config);
}

/** Statuses of a `consume()` after which its stream or consumer must be set up again. */
const SET_UP_AGAIN_ON = new Set(['consumer_not_found', 'stream_not_found', 'consumer_deleted']);

/**
 * Watches the statuses of `messages` (a pull consumer's `consume()`) and calls `gone` when its
 * stream or consumer was deleted, so the caller sets them up again.
 */
export function onConsumerGone(messages: ConsumerMessages, log: Logger, gone: () => void): void {
  void (async () => {
    for await (const status of messages.status()) {
      if (SET_UP_AGAIN_ON.has(status.type)) {
        log.warn({ status: status.type }, 'events stream or consumer gone; setting them up again');
        gone();
      }
    }
  })().catch(() => undefined);
}
