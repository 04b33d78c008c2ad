import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { IntegrationKind, SyncState } from '@catalog/contracts';
import type { IntegrationsTable } from '../../persistence/integration-tables.js';
import type { CatalogDb } from '../../persistence/tables.js';

/**
 * Queries of `catalog.integrations` (decisions 0132, 0133). Each runs in a tenant context (row-level
 * security applies) and filters by `tenant_id` as well, but the heartbeat sweep's claim, which
 * runs outside any tenant and reads the lapsed rows of every tenant.
 */
export type IntegrationRow = Selectable<IntegrationsTable>;

/** A row with whether its heartbeat lapsed by the database's clock (the sweep may not have recorded it yet). */
export type IntegrationRecord = IntegrationRow & { lapsed: boolean };

/** The unique index that keeps an integration's name once per tenant. */
export const INTEGRATION_NAME_UNIQUE_INDEX = 'integrations_tenant_name_key';
/** The unique index that keeps an integration's source system once per tenant. */
export const INTEGRATION_SOURCE_SYSTEM_UNIQUE_INDEX = 'integrations_tenant_source_system_key';

export interface NewIntegrationRow {
  id: string;
  tenantId: string;
  name: string;
  sourceSystem: string;
  kind: IntegrationKind;
  system: string | null;
  heartbeatSeconds: number | null;
}

const seconds = (value: number | null) => sql<Date | null>`now() + make_interval(secs => ${value}::integer)`;
const LAPSED = sql<boolean>`coalesce(heartbeat_due_at <= now(), false)`.as('lapsed');

/** The INSERT of an integration, returning its row; run inside a statement that records its event. */
export function insertIntegrationQuery(db: Kysely<CatalogDb>, row: NewIntegrationRow) {
  return db
    .insertInto('integrations')
    .values({
      id: row.id,
      tenant_id: row.tenantId,
      name: row.name,
      source_system: row.sourceSystem,
      kind: row.kind,
      system: row.system,
      heartbeat_seconds: row.heartbeatSeconds,
      heartbeat_due_at: row.heartbeatSeconds === null ? null : seconds(row.heartbeatSeconds),
    })
    .returningAll()
    .returning(LAPSED);
}

export async function countIntegrations(db: Kysely<CatalogDb>, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('integrations')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** One integration of the tenant; `lock` locks its row until the transaction ends. */
export function findIntegration(
  db: Kysely<CatalogDb>,
  tenantId: string,
  id: string,
  options: { lock?: 'update' | 'share' } = {},
): Promise<IntegrationRecord | undefined> {
  let query = db.selectFrom('integrations').selectAll().select(LAPSED).where('tenant_id', '=', tenantId).where('id', '=', id);
  if (options.lock === 'update') query = query.forUpdate();
  if (options.lock === 'share') query = query.forShare();
  return query.executeTakeFirst();
}

/** A page of the tenant's integrations in id order, after `afterId`. */
export function listIntegrationRows(
  db: Kysely<CatalogDb>,
  tenantId: string,
  page: { afterId?: string | undefined; limit: number },
): Promise<IntegrationRecord[]> {
  let query = db.selectFrom('integrations').selectAll().select(LAPSED).where('tenant_id', '=', tenantId);
  if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
  return query.orderBy('id').limit(page.limit).execute();
}

export interface IntegrationChanges {
  name?: string;
  system?: string | null;
  heartbeatSeconds?: number | null;
}

/**
 * Writes `changes`; a new heartbeat counts from the last report (or the creation), so shortening
 * it may lapse the integration at once. Returns the row.
 */
export function updateIntegrationRow(
  trx: Transaction<CatalogDb>,
  tenantId: string,
  id: string,
  changes: IntegrationChanges,
): Promise<IntegrationRecord> {
  const heartbeat =
    changes.heartbeatSeconds === undefined
      ? {}
      : {
          heartbeat_seconds: changes.heartbeatSeconds,
          heartbeat_due_at:
            changes.heartbeatSeconds === null
              ? null
              : sql<Date>`coalesce(last_report_at, created_at) + make_interval(secs => ${changes.heartbeatSeconds}::integer)`,
        };
  return trx
    .updateTable('integrations')
    .set({
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.system === undefined ? {} : { system: changes.system }),
      ...heartbeat,
      updated_at: sql<Date>`clock_timestamp()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .returning(LAPSED)
    .executeTakeFirstOrThrow();
}

/** What a health write sets: the status (when it changes, with `since` now), the message, and whether it was a report. */
export interface HealthWrite {
  status?: IntegrationRow['health_status'];
  /** When the status became so (default: now). */
  since?: Date;
  message: string | null;
  /** A connector's report: the heartbeat starts again. */
  reported: boolean;
}

export function writeHealth(trx: Transaction<CatalogDb>, tenantId: string, id: string, write: HealthWrite): Promise<IntegrationRecord> {
  return trx
    .updateTable('integrations')
    .set({
      ...(write.status === undefined ? {} : { health_status: write.status, health_since: write.since ?? sql<Date>`now()` }),
      health_message: write.message,
      ...(write.reported
        ? {
            last_report_at: sql<Date>`now()`,
            heartbeat_due_at: sql<Date | null>`now() + make_interval(secs => heartbeat_seconds)`,
          }
        : {}),
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .returning(LAPSED)
    .executeTakeFirstOrThrow();
}

export function deleteIntegrationQuery(db: Kysely<CatalogDb>, tenantId: string, id: string) {
  return db.deleteFrom('integrations').where('tenant_id', '=', tenantId).where('id', '=', id).returning('id');
}

export type AssignmentCounts = Record<SyncState, number>;

/** How many assignments of each integration are in each sync state (zeros for none). */
export async function assignmentCountsOf(
  db: Kysely<CatalogDb>,
  tenantId: string,
  integrationIds: readonly string[],
): Promise<Map<string, AssignmentCounts>> {
  const counts = new Map<string, AssignmentCounts>(integrationIds.map((id) => [id, { pending: 0, synced: 0, failed: 0 }]));
  if (integrationIds.length === 0) return counts;
  const rows = await db
    .selectFrom('assignments')
    .select(['integration_id', 'sync_state', (eb) => eb.fn.countAll<string>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('integration_id', 'in', integrationIds)
    .groupBy(['integration_id', 'sync_state'])
    .execute();
  for (const row of rows) counts.get(row.integration_id)![row.sync_state] = Number(row.n);
  return counts;
}

/**
 * Up to `limit` integrations of any tenant whose heartbeat lapsed and whose recorded status is not
 * down yet, locked until the transaction ends; rows another transaction holds (a report being
 * written, another replica's sweep) are passed by (SKIP LOCKED). Runs outside any tenant.
 */
export function lockLapsedIntegrations(trx: Transaction<CatalogDb>, limit: number): Promise<IntegrationRow[]> {
  return trx
    .selectFrom('integrations')
    .selectAll()
    .where('heartbeat_due_at', 'is not', null)
    .where('heartbeat_due_at', '<=', sql<Date>`now()`)
    .where('health_status', '<>', 'down')
    .orderBy('heartbeat_due_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}
