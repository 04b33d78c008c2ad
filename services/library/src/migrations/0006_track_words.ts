import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/**
 * `library.track_words`: the words of each track's `search` tsvector, one row per (tenant, word,
 * track), btree-indexed tenant first (decision 0105). Under row-level security Postgres may use an
 * index only for conditions whose operators are leakproof; `@@` is not, so the GIN index of
 * `search` is never used for a tenant's query and every track of the tenant was scanned. Text
 * equality and `^@` (starts with) are leakproof: a query's words select their tracks through this
 * table's primary key. A trigger keeps it equal to the lexemes of `tracks.search` on every insert,
 * change of `search` and delete, whoever writes the tracks (the projection, the rebuild, a bulk
 * load). The existing tracks are copied in with the tracks' forced row-level security lifted for
 * the owner for the length of this migration's transaction. Frozen in time.
 */
export const trackWords: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE library.track_words (
           tenant_id uuid NOT NULL,
           word text COLLATE "C" NOT NULL,
           entity_id uuid NOT NULL,
           PRIMARY KEY (tenant_id, word, entity_id)
         );

         CREATE FUNCTION library.sync_track_words() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF TG_OP <> 'INSERT' THEN
             DELETE FROM library.track_words
              WHERE tenant_id = OLD.tenant_id AND entity_id = OLD.entity_id AND word = ANY (tsvector_to_array(OLD.search));
           END IF;
           IF TG_OP <> 'DELETE' THEN
             INSERT INTO library.track_words (tenant_id, word, entity_id)
             SELECT NEW.tenant_id, w, NEW.entity_id FROM unnest(tsvector_to_array(NEW.search)) AS w
             ON CONFLICT DO NOTHING;
           END IF;
           RETURN NULL;
         END $$;

         CREATE TRIGGER tracks_words_insert_delete AFTER INSERT OR DELETE ON library.tracks
           FOR EACH ROW EXECUTE FUNCTION library.sync_track_words();
         CREATE TRIGGER tracks_words_update AFTER UPDATE ON library.tracks
           FOR EACH ROW WHEN (OLD.search IS DISTINCT FROM NEW.search OR OLD.tenant_id <> NEW.tenant_id OR OLD.entity_id <> NEW.entity_id)
           EXECUTE FUNCTION library.sync_track_words();

         ALTER TABLE library.tracks NO FORCE ROW LEVEL SECURITY;
         INSERT INTO library.track_words (tenant_id, word, entity_id)
         SELECT t.tenant_id, w, t.entity_id FROM library.tracks t, unnest(tsvector_to_array(t.search)) AS w
         ON CONFLICT DO NOTHING;
         ALTER TABLE library.tracks FORCE ROW LEVEL SECURITY;`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'library', 'track_words');
  },
};
