import { sql, type Kysely, type Migration } from 'kysely';

/**
 * An index of `library.asset_states` by entity: every refresh reads the files of its entities
 * (decision 0111), which without it meant reading all of the tenant's file states. Frozen in time.
 */
export const assetStatesByEntity: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw(`CREATE INDEX asset_states_by_entity ON library.asset_states (tenant_id, entity_id);`).execute(db);
  },
};
