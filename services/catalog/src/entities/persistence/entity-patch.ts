import { CompiledQuery, type Kysely } from 'kysely';
import { ENTITY_FIELDS, type UpdateEntityBody } from '@catalog/contracts';
import { eventRow, newId } from '@catalog/platform';
import type { EntityViewRow } from './entity-views.js';
import type { CatalogDb } from '../../persistence/tables.js';

/** The fields a PATCH may change, each a column of the same name. */
const PATCHED_FIELDS = ['type', 'title', 'artist'] as const;

/**
 * `entity.updated` as the registry defines it (product, resource kind, schema version): the one
 * event this statement inserts itself, its changed fields computed in SQL (decision 0111).
 */
const UPDATED = eventRow({ type: 'entity.updated', resourceId: null, dmrn: null, data: { changedFields: ['title'] } });

/** `changedFields` in the registry's order, from the `<field>_changed` flags of `c`. */
const changedFieldsSql = ENTITY_FIELDS.filter((f) => (PATCHED_FIELDS as readonly string[]).includes(f))
  .map((f) => `case when c.${f}_changed then '${f}' end`)
  .join(', ');

/**
 * A PATCH of an entity as ONE statement (decision 0111): the entity row is locked (`cur`; after
 * waiting for another writer it is that writer's committed row), compared field by field with the
 * PATCH (`c`: a field changes when the PATCH names it and its value differs), updated only when a
 * field changes (`w`, `updated_at` the time of the write), its `entity.updated` event inserted in
 * the outbox with the changed fields in the registry's order (`ev`, only with `w`), and the row
 * as it now stands returned with its primary ONLINE audio version (as the entity views read it).
 * Parameters: $1 tenant, $2 id, then per field whether the PATCH names it and its value, then the
 * event's id, product, type, resource kind, source system, batch id and schema version.
 */
const PATCH_ENTITY_SQL = `
with cur as (
  select e.* from catalog.entities e where e.tenant_id = $1 and e.id = $2 for update
), c as (
  select cur.id,
         ($3::boolean and $4::text is distinct from cur.type) as type_changed,
         ($5::boolean and $6::text is distinct from cur.title) as title_changed,
         ($7::boolean and $8::text is distinct from cur.artist) as artist_changed
    from cur
), w as (
  update catalog.entities e
     set type = case when c.type_changed then $4::text else e.type end,
         title = case when c.title_changed then $6::text else e.title end,
         artist = case when c.artist_changed then $8::text else e.artist end,
         updated_at = clock_timestamp()
    from c
   where e.tenant_id = $1 and e.id = c.id and (c.type_changed or c.title_changed or c.artist_changed)
  returning e.*
), ev as (
  insert into catalog.outbox
    (id, tenant_id, product, type, resource_kind, resource_id, dmrn, source_system, batch_id, schema_version, data)
  select $9::uuid, $1::uuid, $10::text, $11::text, $12::text, w.id, w.dmrn, $13::text, $14::uuid, $15::integer,
         jsonb_build_object('changedFields', to_jsonb(array_remove(array[${changedFieldsSql}]::text[], null)))
    from w, c
), r as (
  select * from w
  union all
  select * from cur where not exists (select 1 from w)
)
select r.*, pav.*
  from r
  left join lateral (
    select v.id as pav_id, v.label as pav_label, v.version_type as pav_version_type,
           a.duration_ms as pav_duration_ms, v.asset_id as pav_asset_id
      from catalog.versions v
      join catalog.asset_states a on a.tenant_id = v.tenant_id and a.asset_id = v.asset_id
     where v.tenant_id = r.tenant_id and v.entity_id = r.id and v.kind = 'AUDIO' and v.is_primary and a.status = 'ONLINE'
  ) pav on true`;

/**
 * Applies a PATCH to an entity of the tenant with its `entity.updated` event, in one statement
 * (run in the tenant's scope); a PATCH that changes nothing writes nothing. Returns the entity as
 * it now stands, or undefined when the tenant has no such entity.
 */
export async function patchEntity(
  db: Kysely<CatalogDb>,
  context: { tenantId: string; sourceSystem: string },
  id: string,
  patch: UpdateEntityBody,
): Promise<EntityViewRow | undefined> {
  const named = (field: (typeof PATCHED_FIELDS)[number]) => [patch[field] !== undefined, patch[field] ?? null];
  const parameters = [
    context.tenantId,
    id,
    ...PATCHED_FIELDS.flatMap(named),
    newId(),
    UPDATED.product,
    UPDATED.type,
    UPDATED.resourceKind,
    context.sourceSystem,
    newId(),
    UPDATED.schemaVersion,
  ];
  const { rows } = await db.executeQuery<EntityViewRow>(CompiledQuery.raw(PATCH_ENTITY_SQL, parameters));
  return rows[0];
}
