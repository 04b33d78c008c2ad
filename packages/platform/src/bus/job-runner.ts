import { jetstream, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../observability/logger.js';
import { createBackoff, type Backoff } from '../support/backoff.js';
import { fairQueue, type FairQueue } from './fair-queue.js';
import { ensureDurableConsumer, ensureEventsStream, onConsumerGone } from './jetstream.js';
import type { Subjects } from './subjects.js';

/** A job a message names: at least the tenant it runs for (the unit of fairness). */
export interface QueuedJob {
  tenantId: string;
}

/** What to do with a job's message after a run: ack it (the job ended, or is not this message's to run), or deliver it again later. */
export type JobOutcome = { ack: true } | { ack: false; retryInMs: number };

export interface JobRunnerSettings<J extends QueuedJob> {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** Names the runner in its logs ("<name> started"). */
  name: string;
  /** Durable consumer on the events stream, shared by every process that runs these jobs. */
  durable: string;
  /** The jobs' own events (a job's message is the event that created it). */
  filterSubject: string;
  /** A held message not confirmed (`working()`) within this goes to another process. */
  ackWaitMs: number;
  /** Jobs this process runs at once; 0: none (the runner does not start). */
  concurrency: number;
  /** Messages delivered and not settled at most, across the processes (the consumer's max ack pending). */
  maxHeld: number;
  /** Pacing of a job whose run rejected (the database or the bus away): nak'ed after a growing wait. */
  retry: { minMs: number; maxMs: number };
  /** How long a message beyond its tenant's look-ahead waits in the stream before it is delivered again (default 2 s). */
  deferMs?: number;
  /** The job a message names; null for anything else (terminated and logged). */
  jobOf(data: Uint8Array): J | null;
  /** Runs a job; rejects only when the database or the bus failed. `signal` aborts when the runner stops. */
  run(job: J, signal: AbortSignal): Promise<JobOutcome>;
}

export interface JobRunner {
  stop(): Promise<void>;
}

const DEFAULT_DEFER_MS = 2_000;
/** Messages one pull asks for. */
const PULL_BATCH = 100;

interface Held<J> {
  msg: JsMsg;
  job: J;
}

/** Settles a message, never throwing: a connection that is gone settles nothing, and the message comes again after its ack wait. */
function settle(log: Logger, msg: JsMsg, how: (msg: JsMsg) => void): void {
  try {
    how(msg);
  } catch (error) {
    log.warn({ err: error, seq: msg.seq }, 'a job message could not be settled; it comes again after its ack wait');
  }
}

/** A runner's state: its queue of held messages, the jobs running, and how it stops. */
interface Runner<J extends QueuedJob> {
  settings: JobRunnerSettings<J>;
  log: Logger;
  stopping: AbortController;
  queue: FairQueue<Held<J>>;
  /** Messages held (waiting or running): each is confirmed alive until it is settled. */
  held: Set<JsMsg>;
  running: Set<Promise<void>>;
  /** Waits after runs that rejected, growing while they keep failing. */
  failures: Backoff;
}

/** Runs one job and settles its message as the run says (nak'ed at once when the runner stops). */
async function runTurn<J extends QueuedJob>(r: Runner<J>, { msg, job }: Held<J>): Promise<void> {
  const { log, stopping } = r;
  try {
    const outcome = await r.settings.run(job, stopping.signal);
    r.failures.reset();
    if (stopping.signal.aborted && !outcome.ack) settle(log, msg, (m) => m.nak());
    else settle(log, msg, (m) => (outcome.ack ? m.ack() : m.nak(outcome.retryInMs)));
  } catch (error) {
    if (stopping.signal.aborted) return settle(log, msg, (m) => m.nak());
    const retryInMs = r.failures.nextDelayMs();
    log.warn({ err: error, seq: msg.seq, retryInMs }, `a job of ${r.settings.name} failed; it will be delivered again`);
    settle(log, msg, (m) => m.nak(retryInMs));
  }
}

/** Free slots take the next jobs in fair order. */
function dispatch<J extends QueuedJob>(r: Runner<J>): void {
  while (r.running.size < r.settings.concurrency && !r.stopping.signal.aborted) {
    const turn = r.queue.take();
    if (!turn) return;
    const done: Promise<void> = runTurn(r, turn.item).finally(() => {
      r.held.delete(turn.item.msg);
      r.running.delete(done);
      r.queue.done(turn.tenantId);
      dispatch(r);
    });
    r.running.add(done);
  }
}

/** A delivered message: held in its tenant's line, deferred when the line is full, dropped when it is no job. */
function receive<J extends QueuedJob>(r: Runner<J>, msg: JsMsg): void {
  const { log, settings } = r;
  if (r.stopping.signal.aborted) return settle(log, msg, (m) => m.nak());
  const job = settings.jobOf(msg.data);
  if (job === null) {
    log.error({ subject: msg.subject, seq: msg.seq }, `a message of ${settings.name} is not a job; dropped`);
    return settle(log, msg, (m) => m.term('not a job of this queue'));
  }
  if (!r.queue.offer(job.tenantId, { msg, job })) return settle(log, msg, (m) => m.nak(settings.deferMs ?? DEFAULT_DEFER_MS));
  r.held.add(msg);
  dispatch(r);
}

/** Pulls until the runner stops: a session that fails (the bus away, the consumer gone) starts again after a backoff. */
async function pullUntilStopped<J extends QueuedJob>(r: Runner<J>): Promise<void> {
  const backoff = createBackoff({ minMs: 200, maxMs: 5_000 });
  const { signal } = r.stopping;
  while (!signal.aborted) {
    const startedAt = Date.now();
    try {
      await pullSession(r.settings, r.log, (msg) => receive(r, msg), signal);
    } catch (error) {
      if (signal.aborted) break;
      r.log.warn({ err: error }, `pulling ${r.settings.name} failed; trying again`);
    }
    if (Date.now() - startedAt > 30_000) backoff.reset();
    await backoff.wait(signal);
  }
}

/**
 * Runs long jobs from a JetStream work queue, fairly between tenants (decision 0150). A job's
 * message is its creating event, followed by one durable consumer every process shares; the held
 * message is the job's lease:
 * - **pull**: one `consume()` per process; the stream and consumer are set up again when gone, a
 *   failed session is retried with backoff;
 * - **fairness**: a process keeps, per tenant, at most `concurrency` messages waiting beside the
 *   ones it runs, and runs next the tenant with the fewest running (then the one whose turn is
 *   oldest); a tenant's further messages are nak'ed for `deferMs`, so they wait in the stream
 *   where every process (and every other tenant's new message) gets past them;
 * - **heartbeat**: `working()` every third of the ack wait on every held message, waiting or
 *   running; a process that dies stops confirming and its messages go to another;
 * - **backoff**: a run's outcome acks or naks with its delay; a run that rejects is nak'ed after a
 *   wait that grows while runs keep failing;
 * - **stop**: waiting messages are nak'ed at once, running jobs see `signal` abort and their
 *   messages go back to the queue.
 */
export function startJobRunner<J extends QueuedJob>(settings: JobRunnerSettings<J>): JobRunner {
  if (settings.concurrency === 0) return { stop: async () => undefined };
  const r: Runner<J> = {
    settings,
    log: settings.logger.child({ component: 'job-runner', consumer: settings.durable }),
    stopping: new AbortController(),
    queue: fairQueue<Held<J>>(settings.concurrency),
    held: new Set(),
    running: new Set(),
    failures: createBackoff(settings.retry),
  };
  const heartbeat = setInterval(
    () => {
      for (const msg of r.held) settle(r.log, msg, (m) => m.working());
    },
    Math.max(500, Math.floor(settings.ackWaitMs / 3)),
  );
  const pulling = pullUntilStopped(r);
  r.log.info({ concurrency: settings.concurrency }, `${settings.name} started`);
  return {
    async stop() {
      r.stopping.abort();
      await pulling;
      for (const { msg } of r.queue.drain()) {
        r.held.delete(msg);
        settle(r.log, msg, (m) => m.nak());
      }
      await Promise.all(r.running);
      clearInterval(heartbeat);
    },
  };
}

/** One session of pulling: sets the stream and the consumer up, then hands every message to `receive` until the consumer is gone or `stopping` aborts. */
async function pullSession<J extends QueuedJob>(
  settings: JobRunnerSettings<J>,
  log: Logger,
  receive: (msg: JsMsg) => void,
  stopping: AbortSignal,
): Promise<void> {
  const { nc, subjects, durable } = settings;
  await ensureEventsStream(nc, subjects);
  await ensureDurableConsumer(nc, {
    stream: subjects.eventsStream,
    durable,
    filterSubject: settings.filterSubject,
    ackWaitMs: settings.ackWaitMs,
    maxAckPending: settings.maxHeld,
  });
  const consumer = await jetstream(nc).consumers.get(subjects.eventsStream, durable);
  const messages = await consumer.consume({ max_messages: Math.min(PULL_BATCH, settings.maxHeld) });
  const close = (): void => void messages.close().catch(() => undefined);
  if (stopping.aborted) close();
  else stopping.addEventListener('abort', close, { once: true });
  onConsumerGone(messages, log, close);
  try {
    for await (const msg of messages) receive(msg);
  } finally {
    stopping.removeEventListener('abort', close);
  }
}
