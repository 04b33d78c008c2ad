import { sql, type Kysely, type Selectable } from 'kysely';
import type { AssetKind, AssetStatus } from '@catalog/contracts';
import type { EventPosition } from '@catalog/platform';
import type { AssetStatesTable, CatalogDb } from '../../persistence/tables.js';

/**
 * Queries of `catalog.asset_states`: the facts of assets (status, kind, content type, size,
 * duration) as the catalog learns them. Each runs in a tenant context and filters by tenant too.
 */
export type AssetStateRow = Selectable<AssetStatesTable>;

export interface AssetFacts {
  status: AssetStatus;
  kind: AssetKind;
  contentType: string;
  size: number | null;
  durationMs: number | null;
}

/** The stream position stored for facts that came from an RPC answer rather than an event. */
const FROM_ANSWER: EventPosition = { stream: '', seq: 0 };

/**
 * Upserts an asset's facts; on conflict the row changes only when the new facts are newer:
 * for an `answer` (what the asset service answered), when the stored facts are older; for an
 * `event`, by the rules of `applyAssetFacts`.
 */
function upsertAssetFacts(
  db: Kysely<CatalogDb>,
  tenantId: string,
  assetId: string,
  facts: AssetFacts,
  source: { position: EventPosition; factsAt: Date; kind: 'answer' | 'event' },
) {
  return db
    .insertInto('asset_states')
    .values({
      tenant_id: tenantId,
      asset_id: assetId,
      status: facts.status,
      kind: facts.kind,
      content_type: facts.contentType,
      size: facts.size,
      duration_ms: facts.durationMs,
      event_stream: source.position.stream,
      event_seq: source.position.seq,
      facts_at: source.factsAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'asset_id'])
        .doUpdateSet({
          status: (eb) => eb.ref('excluded.status'),
          kind: (eb) => eb.ref('excluded.kind'),
          content_type: (eb) => eb.ref('excluded.content_type'),
          size: (eb) => eb.ref('excluded.size'),
          duration_ms: (eb) => eb.ref('excluded.duration_ms'),
          event_stream: (eb) => eb.ref('excluded.event_stream'),
          event_seq: (eb) => eb.ref('excluded.event_seq'),
          facts_at: (eb) => eb.ref('excluded.facts_at'),
          updated_at: sql<Date>`clock_timestamp()`,
        })
        .where((eb) =>
          source.kind === 'answer'
            ? eb('asset_states.facts_at', '<', eb.ref('excluded.facts_at'))
            : eb.or([
                eb.and([eb('asset_states.event_stream', '=', ''), eb('asset_states.facts_at', '<', eb.ref('excluded.facts_at'))]),
                eb.and([eb('asset_states.event_stream', '<>', ''), eb('asset_states.event_stream', '<>', eb.ref('excluded.event_stream'))]),
                eb.and([
                  eb('asset_states.event_stream', '=', eb.ref('excluded.event_stream')),
                  eb('asset_states.event_seq', '<', eb.ref('excluded.event_seq')),
                ]),
              ]),
        ),
    );
}

/**
 * Records what the asset service answered for an asset (its facts as of `at`, the asset's
 * updatedAt), unless the catalog already knows a state written later (`facts_at`). The answer's
 * row has no stream position: the next event written after it replaces it.
 */
export async function recordAssetSnapshot(
  db: Kysely<CatalogDb>,
  tenantId: string,
  assetId: string,
  facts: AssetFacts,
  at: Date,
): Promise<void> {
  await upsertAssetFacts(db, tenantId, assetId, facts, { position: FROM_ANSWER, factsAt: at, kind: 'answer' }).execute();
}

/** The asset's row, locked until the transaction ends (asset events of it wait meanwhile). */
export function lockAssetState(db: Kysely<CatalogDb>, tenantId: string, assetId: string): Promise<AssetStateRow | undefined> {
  return db
    .selectFrom('asset_states')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('asset_id', '=', assetId)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Applies the facts of an asset event at `position` (written at `occurredAt`), unless the row
 * already reflects that event or a later one: by stream sequence when the row came from an event
 * of the same incarnation of the stream (a redelivery, or an older event delivered late, changes
 * nothing); any event of another incarnation (recreated stream, sequences restarted) wins; a row
 * from an RPC answer gives way to events written after it. Returns the row after the change, or
 * undefined when the event was stale.
 */
export function applyAssetFacts(
  db: Kysely<CatalogDb>,
  tenantId: string,
  assetId: string,
  facts: AssetFacts,
  position: EventPosition,
  occurredAt: Date,
): Promise<AssetStateRow | undefined> {
  return upsertAssetFacts(db, tenantId, assetId, facts, { position, factsAt: occurredAt, kind: 'event' }).returningAll().executeTakeFirst();
}
