import { encodeBusEvent, newId, type BusEvent } from '@catalog/platform';
import { requestOf } from '../src/consumers/analyses-requested.js';
import { jobOfMessage } from '../src/workers/job-messages.js';

/**
 * The events this service reads are checked with the contracts' compiled schemas (decision 0126):
 * a job's analysis.queued (its message on the work queue) and version.analyses_requested.
 */
const event = (type: string, data: Record<string, unknown>, resourceId: string | null = newId()): BusEvent => ({
  id: newId(),
  tenantId: newId(),
  type,
  occurredAt: new Date().toISOString(),
  product: 'catalog',
  resourceKind: type.split('.')[0]!,
  resourceId,
  dmrn: null,
  sourceSystem: 'test',
  batchId: newId(),
  schemaVersion: 1,
  data,
});

const jobFacts = () => ({
  jobId: newId(),
  type: 'loudness',
  assetId: newId(),
  entityId: null,
  versionId: null,
  status: 'QUEUED',
  credits: 2,
});

test("a job's analysis.queued names its job; another event, or data off the schema, names none", () => {
  const queued = event('analysis.queued', jobFacts());
  expect(jobOfMessage(encodeBusEvent(queued))).toEqual({ jobId: queued.data.jobId, tenantId: queued.tenantId });
  expect(jobOfMessage(encodeBusEvent(event('analysis.started', jobFacts())))).toBeNull();
  expect(jobOfMessage(encodeBusEvent(event('analysis.queued', { ...jobFacts(), type: 'colour' })))).toBeNull();
  expect(jobOfMessage(encodeBusEvent(event('analysis.queued', { ...jobFacts(), jobId: 'not-a-uuid' })))).toBeNull();
  expect(jobOfMessage(new TextEncoder().encode('{"jobId":'))).toBeNull();
});

test('version.analyses_requested becomes a request; one off its schema is refused (a TypeError: the consumer parks it)', () => {
  const data = { entityId: newId(), assetId: newId(), entityType: 'song', analysisTypes: ['tempo', 'key'] };
  const requested = event('version.analyses_requested', data);
  expect(requestOf(requested)).toMatchObject({ eventId: requested.id, versionId: requested.resourceId, types: ['tempo', 'key'] });
  expect(() => requestOf(event('version.analyses_requested', { ...data, analysisTypes: ['colour'] }))).toThrow(
    /does not match its schema: \/analysisTypes\/0/,
  );
  expect(() => requestOf(event('version.analyses_requested', { ...data, analysisTypes: [] }))).toThrow(TypeError);
  expect(() => requestOf(event('version.analyses_requested', data, null))).toThrow(/resourceId/);
});
