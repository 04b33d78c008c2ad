import { eventType, schemaValidator } from '@catalog/contracts';
import type { BusEvent } from '@catalog/platform';
import { queueAutomaticAnalyses, type AutomaticRequest } from '../domain/automatic-analyses.js';
import type { AnalysisDatabase } from '../domain/database.js';

/** The compiled checker of `version.analyses_requested` data, as the contracts register it. */
const checkRequested = schemaValidator(eventType('version.analyses_requested').data);

/** The request an event of `version.analyses_requested` makes; a TypeError for anything else (the consumer parks it). */
export function requestOf(event: BusEvent): AutomaticRequest {
  const [issue] = event.resourceId === null ? [{ path: '/resourceId', message: 'is required' }] : checkRequested(event.data);
  if (issue) throw new TypeError(`version.analyses_requested that does not match its schema: ${issue.path} ${issue.message}`);
  const data = event.data as { entityId: string; assetId: string; analysisTypes: AutomaticRequest['types'] };
  return {
    eventId: event.id,
    tenantId: event.tenantId,
    sourceSystem: event.sourceSystem,
    dmrn: event.dmrn,
    versionId: event.resourceId!,
    entityId: data.entityId,
    assetId: data.assetId,
    types: data.analysisTypes,
  };
}

/** Handles one `version.analyses_requested` event (decision 0088): the automatic analyses of the version. */
export function analysesRequestedHandler(db: AnalysisDatabase): (event: BusEvent) => Promise<void> {
  return (event) => queueAutomaticAnalyses(db, requestOf(event));
}
