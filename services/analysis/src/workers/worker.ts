import { jetstream, type Consumer, type JsMsg } from '@nats-io/jetstream';
import {
  createBackoff,
  ensureDurableConsumer,
  ensureEventsStream,
  type Logger,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import type { JobOutcome } from '../domain/run-job.js';
import { jobOfMessage, type JobMessage } from './job-messages.js';

export interface WorkerDeps {
  nc: NatsConnection;
  subjects: Subjects;
  logger: Logger;
  /** Runs the job of one message; rejects only when the database or the bus failed. */
  run(message: JobMessage, signal: AbortSignal): Promise<JobOutcome>;
}

export interface WorkerSettings {
  /** Jobs this process runs at once (ANALYSIS_CONCURRENCY); 0 runs none. */
  concurrency: number;
  durable: string;
  ackWaitMs: number;
  /** Wait before a message whose handling failed (database away) is delivered again. */
  retryMinMs: number;
}

export interface JobWorkers {
  stop(): Promise<void>;
}

/** How long one pull waits for a message (and so how long stopping an idle slot may take). */
const PULL_EXPIRES_MS = 2_000;

/** Handles one message: `working()` while it runs, ack after the job's commit, nak (with a delay) to run it again later. */
async function handle(deps: WorkerDeps, settings: WorkerSettings, msg: JsMsg, signal: AbortSignal): Promise<void> {
  const message = jobOfMessage(msg.data);
  if (!message) {
    deps.logger.error({ subject: msg.subject, seq: msg.seq }, 'a message of the analysis work queue is not a job; dropped');
    msg.term('not an analysis.queued event');
    return;
  }
  const heartbeat = setInterval(() => msg.working(), Math.max(500, Math.floor(settings.ackWaitMs / 3)));
  try {
    const outcome = await deps.run(message, signal);
    if (outcome.ack) msg.ack();
    else msg.nak(outcome.retryInMs);
  } catch (error) {
    deps.logger.warn({ err: error, jobId: message.jobId }, 'running an analysis job failed; it will be delivered again');
    msg.nak(settings.retryMinMs);
  } finally {
    clearInterval(heartbeat);
  }
}

/** One slot: pulls one message at a time from the shared durable consumer and runs it. */
interface ConsumerHandle {
  get(): Promise<Consumer>;
  /** Sets the stream and consumer up again at the next `get()` (after a failed pull: they may be gone). */
  reset(): void;
}

async function slot(deps: WorkerDeps, settings: WorkerSettings, consumer: ConsumerHandle, stopping: AbortSignal): Promise<void> {
  const backoff = createBackoff({ minMs: 200, maxMs: 5_000 });
  while (!stopping.aborted) {
    let msg: JsMsg | null;
    try {
      msg = await (await consumer.get()).next({ expires: PULL_EXPIRES_MS });
      backoff.reset();
    } catch (error) {
      if (stopping.aborted) break;
      deps.logger.warn({ err: error }, 'pulling from the analysis work queue failed; trying again');
      consumer.reset();
      await backoff.wait(stopping);
      continue;
    }
    if (!msg) continue;
    if (stopping.aborted) {
      msg.nak();
      break;
    }
    await handle(deps, settings, msg, stopping);
  }
}

/**
 * Starts `concurrency` workers in this process on the analysis work queue (decision 0126): the
 * `analysis.queued` events of the events stream, followed by one durable pull consumer that every
 * process shares, so each job's message goes to one worker at a time; a message a worker stops
 * confirming (`working()`; the process died) goes to another after `ackWaitMs`. The stream and
 * consumer are set up again when they are gone. `stop()` lets running analyses abort and their
 * messages go back to the queue.
 */
export function startJobWorkers(deps: WorkerDeps, settings: WorkerSettings): JobWorkers {
  if (settings.concurrency === 0) return { stop: async () => undefined };
  const stopping = new AbortController();
  let current: Promise<Consumer> | null = null;
  const { eventsStream } = deps.subjects;
  const consumer: ConsumerHandle = {
    get() {
      current ??= (async () => {
        await ensureEventsStream(deps.nc, deps.subjects);
        await ensureDurableConsumer(deps.nc, {
          stream: eventsStream,
          durable: settings.durable,
          filterSubject: deps.subjects.events('catalog', 'analysis.queued'),
          ackWaitMs: settings.ackWaitMs,
          maxAckPending: 10_000,
        });
        return jetstream(deps.nc).consumers.get(eventsStream, settings.durable);
      })();
      return current;
    },
    reset() {
      current = null;
    },
  };
  const slots = Array.from({ length: settings.concurrency }, () =>
    slot(deps, settings, consumer, stopping.signal).catch((error: unknown) =>
      deps.logger.error({ err: error }, 'an analysis worker stopped'),
    ),
  );
  deps.logger.info({ concurrency: settings.concurrency, consumer: settings.durable }, 'analysis workers started');
  return {
    async stop() {
      stopping.abort();
      await Promise.all(slots);
    },
  };
}
