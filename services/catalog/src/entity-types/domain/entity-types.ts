import { ANALYSIS_TYPES, type AnalysisType, type EntityType } from '@catalog/contracts';
import {
  badRequest,
  conflict,
  forbidden,
  inTenantScope,
  inTenantTransaction,
  notFound,
  outboxFor,
  type CallContext,
  type Kysely,
} from '@catalog/platform';
import {
  countEntityTypes,
  findEntityTypeRow,
  insertEntityTypeIfAbsent,
  listEntityTypeRows,
  updateEntityTypeAnalyses,
  type EntityTypeRow,
} from '../persistence/entity-types.js';
import type { CatalogDb } from '../../persistence/tables.js';

export interface EntityTypeDeps {
  db: Kysely<CatalogDb>;
}

/**
 * Entity types a tenant may configure: their listing is one reply, which must fit the bus
 * (decision 0052); a thousand is far more than a station uses and ~250 KB listed.
 */
const MAX_ENTITY_TYPES = 1000;

function isAnalysisType(value: string): value is AnalysisType {
  return (ANALYSIS_TYPES as readonly string[]).includes(value);
}

/**
 * The automatic analyses of a type are a set: stored and shown without duplicates, in the order of
 * ANALYSIS_TYPES, so listing them in another order is the same configuration.
 */
export function normalizeAnalyses(values: readonly string[]): AnalysisType[] {
  const unknown = values.filter((value) => !isAnalysisType(value));
  if (unknown.length > 0) {
    throw badRequest('invalid_body', 'unknown analysis type', {
      fields: [{ location: 'body', path: '/automaticAnalyses', message: `unknown: ${unknown.join(', ')}` }],
    });
  }
  return ANALYSIS_TYPES.filter((type) => values.includes(type));
}

function sameAnalyses(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

function entityTypeView(row: EntityTypeRow): EntityType {
  return {
    name: row.name,
    automaticAnalyses: normalizeStored(row.automatic_analyses),
    cuePointMarkers: row.cue_point_markers,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Stored lists are normalized on write; this only narrows the type (and drops what it cannot know). */
function normalizeStored(values: readonly string[]): AnalysisType[] {
  return ANALYSIS_TYPES.filter((type) => values.includes(type));
}

export async function listEntityTypes(deps: EntityTypeDeps, call: CallContext): Promise<{ entityTypes: EntityType[] }> {
  const rows = await inTenantScope(deps.db, call.tenantId, (db) => listEntityTypeRows(db, call.tenantId));
  return { entityTypes: rows.map(entityTypeView) };
}

/** A type that was never configured is unknown (404): it has no automatic analyses. */
export async function getEntityType(deps: EntityTypeDeps, call: CallContext, name: string): Promise<EntityType> {
  const row = await inTenantScope(deps.db, call.tenantId, (db) => findEntityTypeRow(db, call.tenantId, name));
  if (!row) throw notFound('entity type');
  return entityTypeView(row);
}

/** Automatic analyses consume credits, so choosing them is the analysis permission's, as queuing one is. */
const ANALYSIS_PERMISSION = 'catalog:analysis';

/**
 * 403 unless the caller may spend credits on analyses: only a key with the analysis permission
 * turns automatic analyses on or changes them (decision 0149). A key without it may still configure
 * the type as long as its automatic analyses stay what they are (none for a new type).
 */
function mayChangeAnalyses(call: CallContext, current: readonly string[], wanted: readonly string[]): void {
  if (sameAnalyses(current, wanted) || call.permissions?.includes(ANALYSIS_PERMISSION)) return;
  throw forbidden(`changing the automatic analyses of an entity type needs the ${ANALYSIS_PERMISSION} permission`, {
    requiredPermission: ANALYSIS_PERMISSION,
  });
}

/**
 * Configures an entity type (upsert): its automatic analyses and whether their cue points become
 * markers. Records entity_type.updated when the type is configured for the first time or either
 * changes; a PUT of the same configuration records nothing.
 */
export async function putEntityType(
  deps: EntityTypeDeps,
  call: CallContext,
  name: string,
  automaticAnalyses: readonly string[],
  cuePointMarkers: boolean,
): Promise<EntityType> {
  const analyses = normalizeAnalyses(automaticAnalyses);
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    const events = outboxFor(trx, 'catalog', call);
    const record = (row: EntityTypeRow) =>
      events.record({
        type: 'entity_type.updated',
        resourceId: null,
        dmrn: null,
        data: { name: row.name, automaticAnalyses: normalizeStored(row.automatic_analyses), cuePointMarkers: row.cue_point_markers },
      });

    const inserted = await insertEntityTypeIfAbsent(trx, { tenantId: call.tenantId, name, automaticAnalyses: analyses, cuePointMarkers });
    if (inserted && (await countEntityTypes(trx, call.tenantId)) > MAX_ENTITY_TYPES) {
      throw conflict('too_many_entity_types', `a tenant has at most ${MAX_ENTITY_TYPES} entity types`, { limit: MAX_ENTITY_TYPES });
    }
    if (inserted) {
      // A refusal rolls the insert back with the transaction.
      mayChangeAnalyses(call, [], analyses);
      await record(inserted);
      return entityTypeView(inserted);
    }
    const current = await findEntityTypeRow(trx, call.tenantId, name, { forUpdate: true });
    if (!current) throw new Error(`entity type ${name} neither inserted nor found`);
    mayChangeAnalyses(call, normalizeStored(current.automatic_analyses), analyses);
    if (sameAnalyses(normalizeStored(current.automatic_analyses), analyses) && current.cue_point_markers === cuePointMarkers) {
      return entityTypeView(current);
    }
    const updated = await updateEntityTypeAnalyses(trx, call.tenantId, name, { automaticAnalyses: analyses, cuePointMarkers });
    await record(updated);
    return entityTypeView(updated);
  });
}
