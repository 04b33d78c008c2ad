import { tmpdir } from 'node:os';
import { Env, eventConsumerEnv, outboxServiceConfig, rpcTimeoutEnv, type ConfigOf } from '@catalog/platform';

/** The workers of one process (decisions 0087, 0126). */
const workerEnv = Env.group({
  concurrency: Env.integer({
    env: 'ANALYSIS_CONCURRENCY',
    default: 1,
    minimum: 0,
    maximum: 64,
    description: 'Analyses one process runs at once (each holds one ffmpeg decode); 0: this process runs no worker (API only).',
  }),
  consumer: Env.string({
    env: 'ANALYSIS_JOBS_CONSUMER',
    default: 'analysis-workers',
    description: "Durable consumer of the jobs' analysis.queued events (the work queue), shared by every worker process.",
  }),
  ackWaitMs: Env.integer({
    env: 'ANALYSIS_ACK_WAIT_MS',
    default: 30_000,
    minimum: 1_000,
    maximum: 600_000,
    description:
      'A job a worker stops confirming (it died) goes to another worker after this: its message is redelivered; workers confirm it every third of it.',
  }),
  maxHeld: Env.integer({
    env: 'ANALYSIS_JOBS_MAX_HELD',
    default: 10_000,
    minimum: 1,
    description:
      "Job messages delivered to the workers and not yet settled, across the processes (the consumer's max ack pending; decision 0150): each process holds a few per tenant, the rest wait in the stream.",
  }),
  maxDeliveries: Env.integer({
    env: 'ANALYSIS_MAX_DELIVERIES',
    default: 5,
    minimum: 1,
    maximum: 100,
    description:
      'Attempts at a job (a worker starting it); when the last one fails, or its worker dies during it, the job is FAILED (max_deliveries_exceeded) and refunded.',
  }),
  retryMinMs: Env.integer({
    env: 'ANALYSIS_RETRY_MIN_MS',
    default: 2_000,
    minimum: 10,
    description: 'Wait before the second attempt at a job that failed for a passing reason; doubles for each attempt after.',
  }),
  retryMaxMs: Env.integer({
    env: 'ANALYSIS_RETRY_MAX_MS',
    default: 60_000,
    minimum: 10,
    description: 'Longest wait between attempts at a job.',
  }),
  timeoutMs: Env.integer({
    env: 'ANALYSIS_TIMEOUT_MS',
    default: 600_000,
    minimum: 1_000,
    description: 'Longest one analysis (probe and decode of a file) may take.',
  }),
  downloadTimeoutMs: Env.integer({
    env: 'ANALYSIS_DOWNLOAD_TIMEOUT_MS',
    default: 300_000,
    minimum: 1_000,
    description: 'Longest the download of a file from the asset service may take.',
  }),
  workDir: Env.string({
    env: 'ANALYSIS_WORK_DIR',
    default: tmpdir(),
    defaultText: "the system's temporary directory",
    description: 'Where a worker keeps the file it analyses (removed after each analysis).',
  }),
  ffmpegPath: Env.string({ env: 'FFMPEG_PATH', default: 'ffmpeg', description: 'The ffmpeg program (built with Chromaprint).' }),
  ffprobePath: Env.string({ env: 'FFPROBE_PATH', default: 'ffprobe', description: 'The ffprobe program.' }),
});

/** The retries of cue points written as a version's markers (decision 0088). */
const markersEnv = Env.group({
  retryIntervalMs: Env.integer({
    env: 'ANALYSIS_MARKERS_RETRY_INTERVAL_MS',
    default: 5_000,
    minimum: 10,
    description: 'How often a replica looks for cue points that the catalog has not yet answered for as markers (and asks again).',
  }),
  maxAttempts: Env.integer({
    env: 'ANALYSIS_MARKERS_MAX_ATTEMPTS',
    default: 20,
    minimum: 1,
    maximum: 1_000,
    description: "Tries at writing a job's cue points as markers without an answer of the catalog before they are given up (logged).",
  }),
  retryMinMs: Env.integer({
    env: 'ANALYSIS_MARKERS_RETRY_MIN_MS',
    default: 5_000,
    minimum: 10,
    description: 'Wait after the first try the catalog did not answer; doubles for each try after.',
  }),
  retryMaxMs: Env.integer({
    env: 'ANALYSIS_MARKERS_RETRY_MAX_MS',
    default: 600_000,
    minimum: 10,
    description: "Longest wait between two tries at writing a job's cue points as markers.",
  }),
});

/** The analysis service's variables, besides the common ones and the outbox relay's (analysis events). */
export const analysisConfig = outboxServiceConfig('analysis', 8083, {
  workers: workerEnv,
  markers: markersEnv,
  maxQueuedPerTenant: Env.integer({
    env: 'ANALYSIS_MAX_QUEUED_PER_TENANT',
    default: 100,
    minimum: 1,
    maximum: 100_000,
    description:
      'Analyses a tenant may have queued or running at once; a request for another is refused with 429 and Retry-After (decision 0150).',
  }),
  /** The durable consumer of version.analyses_requested (automatic analyses, decision 0088). */
  analysesRequested: eventConsumerEnv('ANALYSIS_REQUESTED_EVENTS', 'analysis-requested-events'),
  rpcTimeoutMs: rpcTimeoutEnv('ANALYSIS_RPC_TIMEOUT_MS', 'Longest wait for an answer of the catalog or asset service.'),
  internalUrl: Env.optional(
    Env.string({
      env: 'ANALYSIS_INTERNAL_URL',
      defaultText: 'the bound address',
      description: "Base URL at which the gateway reaches this replica's HTTP listener (results too large for a bus reply, decision 0113).",
    }),
  ),
  resultLinkSecret: Env.optional(
    Env.secret({
      env: 'ANALYSIS_RESULT_LINK_SECRET',
      minLength: 32,
      defaultText: 'random per process',
      description:
        'HMAC key of the short-lived links to large results the gateway follows; the same on every replica when ANALYSIS_INTERNAL_URL reaches more than one.',
    }),
  ),
});

export type AnalysisConfig = ConfigOf<typeof analysisConfig>;
