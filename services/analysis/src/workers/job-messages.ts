import { eventType, schemaValidator } from '@catalog/contracts';
import { decodeBusEvent } from '@catalog/platform';

/** The job a message of the work queue names (its `analysis.queued` event, decision 0126). */
export interface JobMessage {
  jobId: string;
  tenantId: string;
}

/** The compiled checker of `analysis.queued` data, as the contracts register it. */
const checkQueued = schemaValidator(eventType('analysis.queued').data);

/** The job an `analysis.queued` event names; null for anything else (not an event, another type, data off its schema). */
export function jobOfMessage(data: Uint8Array): JobMessage | null {
  const event = decodeBusEvent(data);
  if (event?.type !== 'analysis.queued' || checkQueued(event.data).length > 0) return null;
  return { jobId: (event.data as { jobId: string }).jobId, tenantId: event.tenantId };
}
