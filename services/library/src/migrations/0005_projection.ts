import { sql, type Kysely, type Migration } from 'kysely';

/**
 * `library.projection`: one row, the version of the projection the tracks were last rebuilt with
 * (decision 0104). Missing (a new or dropped schema) or older than the code's version: the service
 * rebuilds the tracks from the catalog. Not a tenant table. Frozen in time.
 */
export const projection: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE library.projection (
           id boolean PRIMARY KEY DEFAULT true CHECK (id),
           version integer NOT NULL,
           rebuilt_at timestamptz NOT NULL DEFAULT now()
         );`,
      )
      .execute(db);
  },
};
