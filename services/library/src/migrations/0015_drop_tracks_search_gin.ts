import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Drops the GIN index of `library.tracks.search` (decision 0173): under forced row-level security
 * Postgres never uses it for `@@`, which is not leakproof (decision 0105; the words' table selects
 * a search's tracks), yet every projected change of a title or artist added the track's words to
 * it. `search` itself stays: the exact check of `q` and the words' weights read it. Frozen in time.
 */
export const dropTracksSearchGin: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw(`DROP INDEX library.tracks_search;`).execute(db);
  },
};
