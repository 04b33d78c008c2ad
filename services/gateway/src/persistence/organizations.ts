import type { Kysely, Selectable } from 'kysely';
import type { GatewayDb, OrganizationsTable } from './tables.js';

export type OrganizationRow = Selectable<OrganizationsTable>;

export function insertOrganization(db: Kysely<GatewayDb>, row: { id: string; name: string; products: string[] }): Promise<OrganizationRow> {
  return db.insertInto('organizations').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findOrganization(db: Kysely<GatewayDb>, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function updateOrganization(
  db: Kysely<GatewayDb>,
  id: string,
  changes: { name?: string | undefined; products?: string[] | undefined },
): Promise<OrganizationRow | undefined> {
  return db
    .updateTable('organizations')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.products !== undefined ? { products: changes.products } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
