import type { Static } from '@sinclair/typebox';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type pg from 'pg';
import { encodeBusEvent, envelopeFromRow, type BusEvent, type EventEnvelopeRow } from '../bus/event-message.js';
import { deadLetterSink, type DeadLetter } from '../bus/dead-letters.js';
import { ensureEventsStream, isStreamMissing, type EventsStreamSettings } from '../bus/jetstream.js';
import { maxPayload } from '../bus/payload-size.js';
import type { NatsConnection } from '../bus/connect.js';
import { createBackoff } from '../support/backoff.js';
import type { Subjects } from '../bus/subjects.js';
import { Env } from '../support/env-schema.js';
import { assertIdentifier } from '../db/database.js';
import { runAsLeader, type Leadership } from '../db/leader.js';
import { OLDEST_RUNNING_IN_DATABASE } from '../db/running-in-database.js';
import { sendQuery } from '../db/send-query.js';
import type { Logger } from '../observability/logger.js';
import { outboxChannel } from './notify.js';

const DAY_MS = 24 * 3600_000;

/** The events stream as `ensureEventsStream` makes it by default. */
const NO_STREAM_SETTINGS: EventsStreamSettings = {};

/** The tunables of a relay and their defaults: the one place each is written. */
const OUTBOX_RELAY_DEFAULTS = {
  /** Rows read and published per round. */
  batchSize: 500,
  /** Longest wait between rounds when no NOTIFY arrives (rows held back by an open transaction). */
  pollIntervalMs: 50,
  /** Published rows older than this are deleted. */
  retentionMs: 7 * DAY_MS,
  pruneIntervalMs: 60_000,
  /** Time to wait for one PubAck before the publish counts as failed. */
  publishTimeoutMs: 5_000,
  /** First and longest wait between attempts after a failure (doubling in between, with jitter). */
  retryMinMs: 100,
  retryMaxMs: 5_000,
  /** How often a replica that is not the relay leader tries to become it. */
  leaseRetryMs: 1_000,
  stream: NO_STREAM_SETTINGS,
};

type ResolvedOptions = typeof OUTBOX_RELAY_DEFAULTS;

/** Tunables of a relay; a field left out (or undefined) keeps its default. */
export type OutboxRelayOptions = Partial<ResolvedOptions>;

export interface OutboxRelaySettings extends OutboxRelayOptions {
  schema: string;
  /**
   * For the relay's own connection (the app role): leader lease, LISTEN, and every statement of
   * the relay (read, mark, prune), so a service pool its requests keep busy never delays publishing.
   */
  connectionString: string;
  role: string;
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
}

export interface OutboxRelay {
  /** Stops publishing; rows not yet marked are published by the next relay of this schema. */
  stop(): Promise<void>;
}

/** The relay's settings a service reads from its environment (`OUTBOX_*`). */
export const outboxRelayEnv = Env.group({
  batchSize: Env.integer({
    env: 'OUTBOX_BATCH_SIZE',
    default: OUTBOX_RELAY_DEFAULTS.batchSize,
    minimum: 1,
    maximum: 5_000,
    description: 'Outbox rows read and published per round.',
  }),
  pollIntervalMs: Env.integer({
    env: 'OUTBOX_POLL_INTERVAL_MS',
    default: OUTBOX_RELAY_DEFAULTS.pollIntervalMs,
    minimum: 5,
    maximum: 60_000,
    description: 'Longest wait between rounds when no NOTIFY arrives.',
  }),
  retentionDays: Env.integer({
    env: 'OUTBOX_RETENTION_DAYS',
    default: OUTBOX_RELAY_DEFAULTS.retentionMs / DAY_MS,
    minimum: 1,
    maximum: 365,
    description: 'Published outbox rows are deleted after this many days.',
  }),
});

/** The relay options of `outboxRelayEnv`'s values. */
export function outboxRelayOptions({ retentionDays, ...options }: Static<typeof outboxRelayEnv>): OutboxRelayOptions {
  return { ...options, retentionMs: retentionDays * DAY_MS };
}

/** The position before every outbox row: a relay (a new leader) starts by reading from there. */
const START = { tx: '0', seq: '0' } as const;

interface OutboxRow extends EventEnvelopeRow {
  tx: string;
  seq: string;
  tenant_id: string;
}

/** Some rows of a round were published (and are marked), then a publish failed. */
class PartialPublishError extends Error {
  constructor(
    readonly published: string[],
    override readonly cause: unknown,
  ) {
    super(`publish failed after ${published.length} rows: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/**
 * Publishes a service's outbox to the events stream, in commit order, and marks rows sent.
 *
 * - Order: rows are read by `(tx_id, seq)` and only below the oldest transaction still running in
 *   the database (`OLDEST_RUNNING_IN_DATABASE`) as the reading statement sees it, so a transaction
 *   still open is never overtaken by later ones, and one open in another database holds nothing.
 * - Per-resource order survives failures: a round is published in windows in which no two rows
 *   concern the same resource, each window awaited in full (every PubAck) before the next; on a
 *   failure the acknowledged rows are marked and the rest are read again, oldest first.
 * - At least once: a row is marked only after its PubAck. A crash between PubAck and marking
 *   re-publishes the row; `Nats-Msg-Id` = event id makes JetStream drop the copy, and the feed
 *   insert is idempotent besides. Marks commit without waiting for the WAL flush (decision 0174):
 *   one a database crash loses is that same case.
 * - One publisher per schema: replicas compete for an advisory-lock lease (see `runAsLeader`).
 * - Prompt: a NOTIFY from the outbox trigger wakes it; otherwise it polls every `pollIntervalMs`.
 *   It reads, marks and prunes on the lease's connection, never waiting for the service's pool.
 * - NATS or Postgres down: retries with backoff, never marks what was not acknowledged.
 * - An event larger than the bus carries is parked in the dead letters (cut to fit) and marked,
 *   instead of stopping the relay for good (decision 0053).
 * - Published rows older than `retentionMs` are pruned.
 */
export function startOutboxRelay(settings: OutboxRelaySettings): OutboxRelay {
  const schema = assertIdentifier(settings.schema);
  const log = settings.logger.child({ component: 'outbox-relay', schema });
  const ctx: RelayContext = {
    settings,
    options: resolvedOptions(settings),
    schema,
    table: `${schema}.outbox`,
    log,
    js: jetstream(settings.nc),
    park: deadLetterSink({ nc: settings.nc, subjects: settings.subjects, logger: log }),
  };
  const leader = runAsLeader(
    {
      connectionString: settings.connectionString,
      role: settings.role,
      lockName: `outbox-relay:${schema}`,
      logger: log,
      retryMs: ctx.options.leaseRetryMs,
    },
    (leadership) => relayAsLeader(ctx, leadership),
  );
  log.info('outbox relay started');
  return {
    async stop() {
      await leader.stop();
      log.info('outbox relay stopped');
    },
  };
}

/** The defaults with every option `settings` gives (an undefined one keeps its default). */
function resolvedOptions(settings: OutboxRelaySettings): ResolvedOptions {
  const options = { ...OUTBOX_RELAY_DEFAULTS };
  for (const key of Object.keys(options) as Array<keyof ResolvedOptions>) {
    if (settings[key] !== undefined) Object.assign(options, { [key]: settings[key] });
  }
  return options;
}

/** What a relay's steps share. */
interface RelayContext {
  settings: OutboxRelaySettings;
  options: ResolvedOptions;
  schema: string;
  /** `<schema>.outbox`. */
  table: string;
  log: Logger;
  js: JetStreamClient;
  park(letter: DeadLetter): Promise<void>;
}

/** Where the rounds of one leadership stand. */
interface RoundState {
  /**
   * Every row up to `after` is published. A round reads only rows with tx_id below the oldest
   * running transaction, all of them visible to it, in (tx_id, seq) order: a row not yet read
   * can never sort before the last one read. Starting the index scan there skips the entries
   * of rows already marked, which stay in the partial index until vacuum removes them.
   */
  after: { tx: string; seq: string };
  streamReady: boolean;
}

/** The rounds of a relay while it leads: woken by NOTIFY or the poll interval, retried with backoff. */
async function relayAsLeader(ctx: RelayContext, { client, signal }: Leadership): Promise<void> {
  const o = ctx.options;
  const wake = wakeSignal(signal);
  client.on('notification', wake.notify);
  await client.query(`LISTEN ${outboxChannel(ctx.schema)}`);
  // Every statement of the relay runs on this connection: none may wait without end.
  await client.query(`SET statement_timeout = ${RELAY_STATEMENT_TIMEOUT_MS}`);
  // Its marks and prunes only record what the stream already holds: a commit of them that a
  // database crash loses re-publishes rows the stream drops as duplicates (decision 0174), so they
  // need not wait for the WAL to reach the disk.
  await client.query('SET synchronous_commit = off');
  const state: RoundState = { after: START, streamReady: false };
  const backoff = createBackoff({ minMs: o.retryMinMs, maxMs: o.retryMaxMs });
  let nextPruneAt = Date.now();
  while (!signal.aborted) {
    if (Date.now() >= nextPruneAt) {
      nextPruneAt = Date.now() + o.pruneIntervalMs;
      await pruneOutbox(ctx, client).catch((error: unknown) => ctx.log.warn({ err: error }, 'pruning the outbox failed'));
    }
    try {
      const read = await relayRound(ctx, state, client);
      backoff.reset();
      // A full batch means there is probably more to read right away.
      if (read < o.batchSize) await wake.wait(o.pollIntervalMs);
    } catch (error) {
      if (signal.aborted) break;
      if (isStreamMissing(error)) state.streamReady = false;
      const retryInMs = backoff.nextDelayMs();
      ctx.log.warn({ err: error, retryInMs }, 'outbox relay round failed; retrying');
      await wake.wait(retryInMs);
    }
  }
  client.removeListener('notification', wake.notify);
}

/** One round: publishes and marks the rows after `state.after` (on `db`, the lease's connection); returns how many it read. */
async function relayRound(ctx: RelayContext, state: RoundState, db: pg.ClientBase): Promise<number> {
  if (!state.streamReady) {
    await ensureEventsStream(ctx.settings.nc, ctx.settings.subjects, ctx.options.stream);
    state.streamReady = true;
  }
  // $2/$3: the position after which the rows not yet published lie. Ordered by the columns (`o.`),
  // not by the text the rows come back as: as text, seq 100 would sort before seq 99.
  const { rows } = await sendQuery<OutboxRow>(db, {
    text: `select o.tx_id::text as tx, o.seq::text as seq, id, tenant_id, product, type, resource_kind, resource_id, dmrn,
            source_system, batch_id, schema_version, data, occurred_at
       from ${ctx.table} o
      where published_at is null
        and (o.tx_id, o.seq) > ($2::xid8, $3::bigint)
        and o.tx_id < ${OLDEST_RUNNING_IN_DATABASE}
      order by o.tx_id, o.seq
      limit $1`,
    values: [ctx.options.batchSize, state.after.tx, state.after.seq],
  });
  if (rows.length === 0) return 0;
  try {
    await markPublished(ctx, db, await publishRows(ctx, rows));
  } catch (error) {
    state.after = START; // read again from the oldest row not published
    if (!(error instanceof PartialPublishError)) throw error;
    await markPublished(ctx, db, error.published);
    if (isStreamMissing(error.cause)) state.streamReady = false;
    throw error.cause;
  }
  const last = rows[rows.length - 1]!;
  state.after = { tx: last.tx, seq: last.seq };
  ctx.log.debug({ published: rows.length }, 'published outbox rows');
  return rows.length;
}

/** Publishes rows window by window (see `resourceWindows`); returns the seqs acknowledged. */
async function publishRows(ctx: RelayContext, rows: OutboxRow[]): Promise<string[]> {
  const { nc, subjects } = ctx.settings;
  const done: string[] = [];
  for (const window of resourceWindows(rows)) {
    const results = await Promise.allSettled(
      window.map((row) => {
        const subject = subjects.events(row.product, row.type);
        const data = encodeBusEvent(toBusEvent(row));
        // An event the bus cannot carry would stop the relay for good: parked, then marked.
        if (data.length > maxPayload(nc) - PUBLISH_HEADER_ROOM) return ctx.park(oversized(ctx.schema, row, subject, data));
        return ctx.js.publish(subject, data, { msgID: row.id, timeout: ctx.options.publishTimeoutMs });
      }),
    );
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    window.forEach((row, i) => {
      if (results[i]?.status === 'fulfilled') done.push(row.seq);
    });
    if (failure) throw new PartialPublishError(done, failure.reason);
  }
  return done;
}

async function markPublished(ctx: RelayContext, db: pg.ClientBase, seqs: string[]): Promise<void> {
  if (seqs.length === 0) return;
  await db.query(`update ${ctx.table} set published_at = now() where seq = any($1::bigint[])`, [seqs]);
}

/** Deletes published rows older than `retentionMs`, 5000 at a time. */
async function pruneOutbox(ctx: RelayContext, db: pg.ClientBase): Promise<void> {
  let removed = 0;
  for (;;) {
    const result = await db.query(
      `delete from ${ctx.table} where seq in (
         select seq from ${ctx.table} where published_at < now() - make_interval(secs => $1) limit 5000)`,
      [ctx.options.retentionMs / 1000],
    );
    removed += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < 5000) break;
  }
  if (removed > 0) ctx.log.info({ removed }, 'pruned published outbox rows');
}

/** Longest a statement of the relay (read, mark, prune) may run on the lease's connection. */
const RELAY_STATEMENT_TIMEOUT_MS = 30_000;

/** Room for the headers of a publish (`Nats-Msg-Id`). */
const PUBLISH_HEADER_ROOM = 256;

/** The dead letter of an outbox row too large to publish (decision 0053): its consumer is the relay. */
function oversized(schema: string, row: OutboxRow, subject: string, data: Uint8Array): DeadLetter {
  return {
    kind: 'too_large',
    reason: `the event is ${data.length} bytes, more than the bus carries`,
    attempts: 0,
    subject,
    stream: `${schema}.outbox`,
    streamSeq: Number(row.seq),
    consumer: `outbox-relay-${schema}`,
    data,
  };
}

function toBusEvent(row: OutboxRow): BusEvent {
  return { tenantId: row.tenant_id, ...envelopeFromRow(row) };
}

/**
 * Splits rows (already in commit order) into consecutive windows in which each resource appears
 * at most once, so publishing a window concurrently can never reorder two events of a resource.
 */
export function resourceWindows<R extends { resource_kind: string; resource_id: string | null }>(rows: R[]): R[][] {
  const windows: R[][] = [];
  let current: R[] = [];
  let keys = new Set<string>();
  for (const row of rows) {
    const key = `${row.resource_kind}:${row.resource_id ?? ''}`;
    if (keys.has(key)) {
      windows.push(current);
      current = [];
      keys = new Set();
    }
    current.push(row);
    keys.add(key);
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

/** A wake-up flag: `notify` ends the current (or the next) `wait` early. */
function wakeSignal(signal: AbortSignal): { notify: () => void; wait: (ms: number) => Promise<void> } {
  let pending = false;
  let release: (() => void) | null = null;
  signal.addEventListener('abort', () => release?.(), { once: true });
  return {
    notify() {
      pending = true;
      release?.();
    },
    wait(ms) {
      if (pending || signal.aborted) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done(): void {
          clearTimeout(timer);
          release = null;
          pending = false;
          resolve();
        }
        release = done;
      });
    },
  };
}
