import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type StreamInfo } from '@nats-io/jetstream';
import { isJetStreamApiError, isStreamMissing, isUuid, type NatsConnection } from '@catalog/platform';

/**
 * The analysis work queue (decision 0087): its own JetStream stream `<PREFIX>_ANALYSIS_JOBS` on
 * `<prefix>.analysis.jobs.<type>`, work-queue retention (a message leaves the stream when a worker
 * acks it), one durable pull consumer shared by every worker process. A message names one job;
 * the job's row is the truth (its message is only a wake-up), so a message published twice or for
 * a job that has ended is harmless.
 */
export interface JobQueueNames {
  stream: string;
  wildcard: string;
  subject(type: string): string;
}

export function jobQueueNames(prefix: string): JobQueueNames {
  return {
    stream: `${prefix}_analysis_jobs`.toUpperCase().replace(/-/g, '_'),
    wildcard: `${prefix}.analysis.jobs.>`,
    subject: (type) => `${prefix}.analysis.jobs.${type}`,
  };
}

export interface JobMessage {
  jobId: string;
  tenantId: string;
  assetId: string;
  type: string;
}

const MS_TO_NS = 1_000_000;
/** A job published twice within this window is stored once (Nats-Msg-Id = job id). */
const DUPLICATE_WINDOW_MS = 2 * 60_000;
const STREAM_NOT_FOUND = 10059;
const STREAM_NAME_IN_USE = 10058;

/** Creates the work-queue stream unless it exists (several processes may race: the loser reads it). */
export async function ensureJobStream(nc: NatsConnection, names: JobQueueNames): Promise<StreamInfo> {
  const jsm = await jetstreamManager(nc);
  try {
    return await jsm.streams.info(names.stream);
  } catch (error) {
    if (!isJetStreamApiError(error, STREAM_NOT_FOUND)) throw error;
  }
  try {
    return await jsm.streams.add({
      name: names.stream,
      subjects: [names.wildcard],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: DUPLICATE_WINDOW_MS * MS_TO_NS,
    });
  } catch (error) {
    if (!isJetStreamApiError(error, STREAM_NAME_IN_USE)) throw error;
    return jsm.streams.info(names.stream);
  }
}

export interface WorkerConsumerSettings {
  durable: string;
  ackWaitMs: number;
}

/**
 * The durable pull consumer of every worker (create or update): explicit acks, a message not acked
 * (nor `working()`) within `ackWaitMs` goes to another worker; deliveries unlimited, because the
 * service counts them itself and fails the job after its maximum (decision 0087).
 */
export async function ensureWorkerConsumer(nc: NatsConnection, names: JobQueueNames, settings: WorkerConsumerSettings): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(names.stream, {
    durable_name: settings.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: settings.ackWaitMs * MS_TO_NS,
    max_deliver: -1,
    max_ack_pending: 10_000,
  });
}

/** Publishes a job's message (stored once within the duplicate window); sets the stream up again when it is gone. */
export async function publishJob(nc: NatsConnection, names: JobQueueNames, job: JobMessage): Promise<void> {
  const send = () => jetstream(nc).publish(names.subject(job.type), JSON.stringify(job), { msgID: job.jobId, timeout: 5_000 });
  try {
    await send();
  } catch (error) {
    if (!isStreamMissing(error)) throw error;
    await ensureJobStream(nc, names);
    await send();
  }
}

/** The job a message names; null for anything that is not a job message. */
export function decodeJobMessage(data: Uint8Array): JobMessage | null {
  try {
    const value = JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;
    const ok = isUuid(value.jobId) && isUuid(value.tenantId) && isUuid(value.assetId) && typeof value.type === 'string';
    return ok
      ? { jobId: value.jobId as string, tenantId: value.tenantId as string, assetId: value.assetId as string, type: value.type as string }
      : null;
  } catch {
    return null;
  }
}
