import type { EntityField, JobCounts, JobRowError } from '@catalog/contracts';
import type { EntityChanges } from '../../persistence/entities.js';
import type { ImportKeyRow, ImportLookup, ImportMatch } from '../persistence/import-keys.js';
import { newEntity, type NewEntity } from '../../entities/domain/entities.js';
import type { CheckedRow } from './import-rows.js';

/**
 * What a chunk of an import does (decision 0134), worked out in memory from its rows, in file
 * order, and the entities they match (locked by the chunk's transaction):
 * - a row finds its entity by DMRN, else by externalId, else (with neither) by natural key;
 * - an entity this job already touched at an earlier row makes the row a duplicate (reported,
 *   skipped), so the first row of the file wins and a rerun finds each entity as the first row left it;
 * - a found entity changes only where the row differs (an absent artist changes nothing);
 *   otherwise the row is unchanged: nothing written, no event;
 * - a row that finds nothing creates an entity.
 */

/** An entity as the chunk's rows see it: as found, or as an earlier row of the chunk made it. */
interface Target {
  id: string;
  type: string;
  title: string;
  artist: string | null;
  dmrn: string | null;
  externalId: string | null;
  naturalKey: string | null;
  /** The row of this job that touched it, if any. */
  touchedAt: number | null;
}

export interface EntityUpdate {
  id: string;
  dmrn: string | null;
  changes: EntityChanges;
  changedFields: EntityField[];
}

export interface ChunkPlan {
  creates: NewEntity[];
  updates: EntityUpdate[];
  keys: ImportKeyRow[];
  errors: JobRowError[];
  counts: JobCounts;
}

/** What a chunk looks its rows up by. */
export function lookupOf(rows: readonly CheckedRow[]): ImportLookup {
  const present = (values: Array<string | null | undefined>) => [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  return {
    dmrns: present(rows.map((r) => r.value.dmrn)),
    externalIds: present(rows.map((r) => r.value.externalId)),
    naturalKeys: present(rows.map((r) => r.naturalKey)),
  };
}

class TargetIndex {
  private readonly byDmrn = new Map<string, Target>();
  private readonly byExternalId = new Map<string, Target>();
  private readonly byNaturalKey = new Map<string, Target>();

  constructor(
    matches: readonly ImportMatch[],
    private readonly jobId: string,
  ) {
    for (const m of matches) {
      const touchedAt = m.job_id === jobId ? m.row_number : null;
      this.add({ ...m, externalId: m.external_id, naturalKey: m.natural_key, touchedAt });
    }
  }

  add(target: Target): void {
    if (target.dmrn !== null) this.byDmrn.set(target.dmrn, target);
    if (target.externalId !== null) this.byExternalId.set(target.externalId, target);
    if (target.naturalKey !== null) this.byNaturalKey.set(target.naturalKey, target);
  }

  /** The entity a row finds, or why the row cannot be applied. */
  find(row: CheckedRow): Target | null | JobRowError {
    const { dmrn, externalId } = row.value;
    const byDmrn = dmrn !== undefined ? this.byDmrn.get(dmrn) : undefined;
    const byExternalId = externalId !== undefined ? this.byExternalId.get(externalId) : undefined;
    if (byDmrn && byExternalId && byDmrn !== byExternalId) {
      return {
        row: row.row,
        code: 'external_id_conflict',
        message: `externalId ${externalId} belongs to another entity than DMRN ${dmrn}`,
      };
    }
    const target = byDmrn ?? byExternalId ?? (row.naturalKey !== null ? this.byNaturalKey.get(row.naturalKey) : undefined) ?? null;
    if (target && target.touchedAt !== null) {
      return { row: row.row, code: 'duplicate_in_file', message: `row ${target.touchedAt} of this file already wrote this entity` };
    }
    return target;
  }
}

/** How `target` must change to be as `row` says (fields in the registry's order). */
function changesOf(target: Target, row: CheckedRow): EntityUpdate {
  const { type, title, artist, dmrn } = row.value;
  const changes: EntityChanges = {};
  const changedFields: EntityField[] = [];
  if (type !== target.type) changes.type = type;
  if (title !== target.title) changes.title = title;
  if (artist !== undefined && artist !== target.artist) changes.artist = artist;
  if (dmrn !== undefined && dmrn !== target.dmrn) changes.dmrn = dmrn;
  for (const field of ['type', 'title', 'artist'] as const) if (field in changes) changedFields.push(field);
  if ('dmrn' in changes) changedFields.push('externalReferences');
  return { id: target.id, dmrn: dmrn ?? target.dmrn, changes, changedFields };
}

/** A new entity of the row. */
function createdOf(tenantId: string, { type, title, artist, dmrn }: CheckedRow['value']): NewEntity {
  return newEntity(
    { tenantId },
    { type, title, ...(artist !== undefined ? { artist } : {}), ...(dmrn !== undefined ? { externalReferences: { dmrn } } : {}) },
  );
}

/** The plan of a chunk of checked rows (file order) against the entities they match. */
export function planChunk(tenantId: string, jobId: string, rows: readonly CheckedRow[], matches: readonly ImportMatch[]): ChunkPlan {
  const index = new TargetIndex(matches, jobId);
  const plan: ChunkPlan = { creates: [], updates: [], keys: [], errors: [], counts: { created: 0, updated: 0, unchanged: 0, skipped: 0 } };
  for (const row of rows) {
    const found = index.find(row);
    if (found !== null && 'code' in found) {
      plan.errors.push(found);
      plan.counts.skipped += 1;
      continue;
    }
    const { value } = row;
    let target: Target;
    if (found === null) {
      const created = createdOf(tenantId, value);
      plan.creates.push(created);
      plan.counts.created += 1;
      target = { ...created.row, externalId: null, naturalKey: null, touchedAt: null };
    } else {
      target = found;
      const update = changesOf(target, row);
      if (update.changedFields.length > 0) {
        plan.updates.push(update);
        Object.assign(target, update.changes);
        plan.counts.updated += 1;
      } else plan.counts.unchanged += 1;
    }
    target.externalId = value.externalId ?? target.externalId;
    target.naturalKey = target.naturalKey ?? row.naturalKey;
    target.touchedAt = row.row;
    index.add(target);
    plan.keys.push({ entityId: target.id, externalId: target.externalId, naturalKey: target.naturalKey, row: row.row });
  }
  return plan;
}
