import {
  consumeEvents,
  eventDataIssues,
  sleep,
  type BusEvent,
  type ConsumerMessage,
  type ConsumerSession,
  type ServiceRuntime,
} from '@catalog/platform';
import { runImportJob, type ImportRunDeps, type JobMessage } from '../domain/import-run.js';
import type { CatalogDb } from '../persistence/tables.js';

type ImportRunSettings = ImportRunDeps['settings'];

/**
 * The work queue of import jobs (decision 0134, as 0126's for analyses): the jobs' `job.created`
 * events, followed by one durable consumer every catalog replica shares.
 */

/** The job a `job.created` event names; null for anything else (another type, data off its schema). */
export function importJobOf(event: BusEvent): JobMessage | null {
  if (event.type !== 'job.created' || eventDataIssues(event.type, event.data).length > 0) return null;
  return { jobId: (event.data as { jobId: string }).jobId, tenantId: event.tenantId };
}

/**
 * Holds one message while its job runs: `working()` every `heartbeatMs` tells JetStream the
 * delivery is alive (a job runs far longer than the ack wait; a dead process stops telling, and
 * the message goes to another replica, which takes the job over from its checkpoint). A failed
 * attempt waits (still held) and tries again, as the platform's consumer does.
 */
async function holdWhileRunning(session: ConsumerSession, msg: ConsumerMessage, heartbeatMs: number): Promise<void> {
  const heartbeat = setInterval(() => msg.working(), heartbeatMs);
  try {
    for (;;) {
      const retryInMs = await session.attempt(msg);
      if (retryInMs === null) return;
      msg.working();
      await sleep(retryInMs, session.signal);
    }
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The session's messages, each run as soon as it arrives (at most the consumer's max ack pending
 * at once, across the replicas), each held until its job ended.
 */
export function followImportJobs(heartbeatMs: number) {
  return async (session: ConsumerSession): Promise<void> => {
    const running = new Set<Promise<void>>();
    for await (const msg of session.messages) {
      const held: Promise<void> = holdWhileRunning(session, msg, heartbeatMs)
        // A message the bus cannot settle any more (the connection gone) comes again elsewhere.
        .catch((error: unknown) => session.log.warn({ err: error, seq: msg.seq }, 'an import job message was not settled'))
        .finally(() => running.delete(held));
      running.add(held);
    }
    await Promise.all(running);
  };
}

/** The import settings the consumer needs (CATALOG_IMPORT_*). */
export interface ImportJobsSettings extends ImportRunSettings {
  durable: string;
  ackWaitMs: number;
  concurrency: number;
}

/**
 * Runs import jobs in this replica: a durable consumer of `job.created` (explicit ack after the
 * job ended, at most `concurrency` jobs held across the replicas), each job run by `runImportJob`.
 * Stopping aborts the running jobs' reads; their messages go back and resume elsewhere.
 */
export function consumeImportJobs(
  runtime: ServiceRuntime<CatalogDb>,
  settings: ImportJobsSettings,
  deps: Omit<ImportRunDeps, 'settings'>,
): void {
  const stopping = new AbortController();
  const run: ImportRunDeps = {
    ...deps,
    settings: { chunkRows: settings.chunkRows, maxAttempts: settings.maxAttempts, maxRowBytes: settings.maxRowBytes },
  };
  consumeEvents(runtime, {
    durable: settings.durable,
    ackWaitMs: settings.ackWaitMs,
    maxAckPending: settings.concurrency,
    filterSubject: runtime.subjects.events('catalog', 'job.created'),
    handle: async (event) => {
      const job = importJobOf(event);
      if (job === null)
        runtime.logger.error({ type: event.type, id: event.id }, 'a message of the import queue is not a job.created; dropped');
      else await runImportJob(run, job, stopping.signal);
    },
    follow: followImportJobs(Math.max(500, Math.floor(settings.ackWaitMs / 3))),
  });
  // Registered after the consumer: stops run in reverse, so the reads abort before the consumer waits for its jobs.
  runtime.onStop(async () => stopping.abort());
}
