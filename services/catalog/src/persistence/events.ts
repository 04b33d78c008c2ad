import { type AnalysisType, type AssetKind, type EntityField, type MarkerType, type VersionField } from '@catalog/contracts';
import type { MoleculeDeleteReason, MoleculeField } from '@catalog/contracts';
import type { RelationType } from '@catalog/contracts';
import type { AssignmentDeleteReason, HealthChangeReason, HealthStatus, IntegrationField, IntegrationKind } from '@catalog/contracts';
import type { ReportedHealth, SyncState } from '@catalog/contracts';
import type { JobCounts, JobType } from '@catalog/contracts';
import { outboxFor, registeredEvent, type CallContext, type EventRecord, type Transaction } from '@catalog/platform';

/** The `data` of each event type the catalog records (the registry in contracts has the schemas). */
export interface CatalogEventData {
  'entity.created': { entityType: string };
  'entity.updated': { changedFields: EntityField[] };
  'entity.deleted': Record<string, never>;
  'entity_type.updated': { name: string; automaticAnalyses: AnalysisType[]; cuePointMarkers: boolean };
  'version.created': { entityId: string; kind: AssetKind; versionType: string; assetId: string; isPrimary: boolean };
  'version.updated': { entityId: string; kind: AssetKind; changedFields: VersionField[] };
  'version.deleted': { entityId: string; kind: AssetKind; assetId: string; reason: 'deleted' | 'entity_deleted' };
  'version.primary_changed': { kind: AssetKind; versionId: string | null; previousVersionId: string | null };
  'markers.updated': { entityId: string; count: number; types: MarkerType[] };
  'version.analyses_requested': { entityId: string; assetId: string; entityType: string; analysisTypes: AnalysisType[] };
  'integration.created': { name: string; kind: IntegrationKind };
  'integration.updated': { changedFields: IntegrationField[] };
  'integration.deleted': Record<string, never>;
  'integration.health_changed': { status: ReportedHealth; previous: HealthStatus; reason: HealthChangeReason };
  'assignment.created': { integrationId: string; entityId: string };
  'assignment.deleted': { integrationId: string; entityId: string; reason: AssignmentDeleteReason };
  'assignment.sync_state_changed': AssignmentStateChange;
  'molecule.created': { elementCount: number };
  'molecule.updated': { changedFields: MoleculeField[]; elementCount: number };
  'molecule.deleted': { elementCount: number; reason: MoleculeDeleteReason };
  'relation.created': { type: RelationType; sourceId: string; targetId: string };
  'relation.deleted': { type: RelationType; sourceId: string; targetId: string };
  'job.created': JobFacts;
  'job.progressed': JobFacts & JobProgress;
  'job.succeeded': JobFacts & JobProgress & JobCounts;
  'job.failed': JobFacts & JobProgress & { errorCode: string };
}

/** What every job event says, and how far the job got (decision 0134). */
type JobFacts = { jobId: string; type: JobType; assetId: string };
type JobProgress = { processed: number; total: number };

/** `assignment.sync_state_changed` data (decision 0132). */
export type AssignmentStateChange = {
  integrationId: string;
  entityId: string;
  state: SyncState;
  previous: SyncState;
  versionIds: string[];
  reason: string | null;
};

export type CatalogEventType = keyof CatalogEventData;

export interface CatalogEvent<T extends CatalogEventType> {
  resourceId: string | null;
  dmrn: string | null;
  data: CatalogEventData[T];
}

export interface CatalogEvents {
  record<T extends CatalogEventType>(type: T, event: CatalogEvent<T>): Promise<string>;
}

/**
 * A catalog event as the outbox stores it (`registeredEvent`: product, resource kind and schema
 * version from the event registry, the data checked against the registered schema).
 */
export function catalogEvent<T extends CatalogEventType>(type: T, event: CatalogEvent<T>): EventRecord {
  return registeredEvent(type, { resourceId: event.resourceId, dmrn: event.dmrn, data: event.data });
}

/**
 * Records catalog events in the outbox of the given transaction, so they commit or roll back with
 * the write they describe.
 */
export function catalogEventsFor<DB>(trx: Transaction<DB>, call: Pick<CallContext, 'tenantId' | 'sourceSystem'>): CatalogEvents {
  const outbox = outboxFor(trx, 'catalog', { tenantId: call.tenantId, sourceSystem: call.sourceSystem });
  return {
    record: (type, event) => outbox.record(catalogEvent(type, event)),
  };
}
