import { sql, type Kysely } from 'kysely';
import type { EntityChanges } from '../../persistence/entities.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * Queries an import's chunk runs in its transaction (decision 0134): the entities its rows match,
 * locked, with their import keys; the keys and marks it leaves; one entity's update.
 */

/** An entity a row of the chunk may match, with its import key (null columns: it has none yet). */
export interface ImportMatch {
  id: string;
  type: string;
  title: string;
  artist: string | null;
  dmrn: string | null;
  external_id: string | null;
  natural_key: string | null;
  job_id: string | null;
  row_number: number | null;
}

/** What a chunk looks its rows up by. */
export interface ImportLookup {
  dmrns: string[];
  externalIds: string[];
  naturalKeys: string[];
}

/**
 * The tenant's entities holding one of the DMRNs, or whose import key has one of the external ids
 * or natural keys, locked until the chunk commits (one statement text for any number: arrays).
 */
export async function findImportMatches(db: Kysely<CatalogDb>, tenantId: string, lookup: ImportLookup): Promise<ImportMatch[]> {
  if (lookup.dmrns.length + lookup.externalIds.length + lookup.naturalKeys.length === 0) return [];
  const { rows } = await sql<ImportMatch>`
    with m as (
      select id from catalog.entities where tenant_id = ${tenantId} and dmrn = any(${lookup.dmrns}::text[])
      union
      select entity_id from catalog.entity_import_keys where tenant_id = ${tenantId} and external_id = any(${lookup.externalIds}::text[])
      union
      select entity_id from catalog.entity_import_keys where tenant_id = ${tenantId} and natural_key = any(${lookup.naturalKeys}::text[])
    )
    select e.id, e.type, e.title, e.artist, e.dmrn, k.external_id, k.natural_key, k.job_id, k.row_number
      from catalog.entities e
      join m on m.id = e.id
      left join catalog.entity_import_keys k on k.entity_id = e.id
     where e.tenant_id = ${tenantId}
       for update of e`.execute(db);
  return rows;
}

/** The key an entity keeps after a row of job `jobId` made or matched it. */
export interface ImportKeyRow {
  entityId: string;
  externalId: string | null;
  naturalKey: string | null;
  row: number;
}

/** Writes the keys and marks of a chunk's entities (one statement): a key given replaces the one kept, none keeps it. */
export async function upsertImportKeys(db: Kysely<CatalogDb>, tenantId: string, jobId: string, keys: ImportKeyRow[]): Promise<void> {
  if (keys.length === 0) return;
  const column = <T>(of: (key: ImportKeyRow) => T) => keys.map(of);
  await sql`
    insert into catalog.entity_import_keys as k (entity_id, tenant_id, external_id, natural_key, job_id, row_number)
    select u.entity_id, ${tenantId}::uuid, u.external_id, u.natural_key, ${jobId}::uuid, u.row_number
      from unnest(${column((k) => k.entityId)}::uuid[], ${column((k) => k.externalId)}::text[],
                  ${column((k) => k.naturalKey)}::text[], ${column((k) => k.row)}::integer[])
           as u(entity_id, external_id, natural_key, row_number)
    on conflict (entity_id) do update
       set external_id = coalesce(excluded.external_id, k.external_id),
           natural_key = coalesce(excluded.natural_key, k.natural_key),
           job_id = excluded.job_id,
           row_number = excluded.row_number`.execute(db);
}

/** The UPDATE of one entity's fields, returning its row; run inside a statement that records its event. */
export function updateEntityQuery(db: Kysely<CatalogDb>, tenantId: string, id: string, changes: EntityChanges) {
  return db
    .updateTable('entities')
    .set({ ...changes, updated_at: sql<Date>`clock_timestamp()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll();
}
