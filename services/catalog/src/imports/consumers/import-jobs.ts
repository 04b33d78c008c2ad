import { decodeBusEvent, eventDataIssues, startJobRunner, type JobOutcome, type ServiceRuntime } from '@catalog/platform';
import { runImportJob, type ImportRunDeps, type JobMessage } from '../domain/import-run.js';
import type { CatalogDb } from '../../persistence/tables.js';

type ImportRunSettings = ImportRunDeps['settings'];

/** The import settings the runner needs (CATALOG_IMPORT_*). */
export interface ImportJobsSettings extends ImportRunSettings {
  durable: string;
  ackWaitMs: number;
  concurrency: number;
  maxHeld: number;
}

/** Pacing of a job whose run rejected (the database or the asset service away): nak'ed after a wait from this up to `maxMs`. */
const RETRY = { minMs: 500, maxMs: 30_000 };

const ACK: JobOutcome = { ack: true };

/** The job a message of the queue names: its `job.created` event; null for anything else (not an event, another type, data off its schema). */
export function importJobOf(data: Uint8Array): JobMessage | null {
  const event = decodeBusEvent(data);
  if (event?.type !== 'job.created' || eventDataIssues(event.type, event.data).length > 0) return null;
  return { jobId: (event.data as { jobId: string }).jobId, tenantId: event.tenantId };
}

/**
 * Runs import jobs in this replica on the platform's job runner (decisions 0134, 0150): the jobs'
 * `job.created` events, followed by one durable consumer every replica shares, at most
 * `concurrency` jobs at once per replica, taken fairly between tenants; each job run by
 * `runImportJob`, its message acked once it ended. Stopping aborts the running jobs' reads; their
 * messages go back and resume elsewhere from their checkpoints.
 */
export function consumeImportJobs(
  runtime: ServiceRuntime<CatalogDb>,
  settings: ImportJobsSettings,
  deps: Omit<ImportRunDeps, 'settings'>,
): void {
  const run: ImportRunDeps = { ...deps, settings };
  const runner = startJobRunner({
    nc: runtime.nc,
    subjects: runtime.subjects,
    logger: runtime.logger,
    name: 'import jobs',
    durable: settings.durable,
    filterSubject: runtime.subjects.events('catalog', 'job.created'),
    ackWaitMs: settings.ackWaitMs,
    concurrency: settings.concurrency,
    maxHeld: settings.maxHeld,
    retry: RETRY,
    jobOf: importJobOf,
    run: async (job, signal) => {
      await runImportJob(run, job, signal);
      // Stopped during the run: whatever it got to, the message goes back (a job that ended is acked at its next delivery).
      return signal.aborted ? { ack: false, retryInMs: 0 } : ACK;
    },
  });
  runtime.onStop(() => runner.stop());
}
