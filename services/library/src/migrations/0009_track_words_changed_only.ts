import { sql, type Kysely, type Migration } from 'kysely';

/**
 * `library.sync_track_words()` (migration 0006) writes only the words that changed: a change of a
 * track's `search` deleted all of its words and inserted them again, so a title edit that kept
 * most words rewrote every one of them (and left a dead index entry behind each). Inserts and
 * deletes of tracks, and a track moved to another tenant or entity, work as before. Frozen in time.
 */
export const trackWordsChangedOnly: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE OR REPLACE FUNCTION library.sync_track_words() RETURNS trigger LANGUAGE plpgsql AS $$
         DECLARE
           same boolean := TG_OP = 'UPDATE' AND OLD.tenant_id = NEW.tenant_id AND OLD.entity_id = NEW.entity_id;
         BEGIN
           IF TG_OP <> 'INSERT' THEN
             DELETE FROM library.track_words
              WHERE tenant_id = OLD.tenant_id AND entity_id = OLD.entity_id
                AND word = ANY (CASE WHEN same
                                     THEN ARRAY(SELECT unnest(tsvector_to_array(OLD.search)) EXCEPT SELECT unnest(tsvector_to_array(NEW.search)))
                                     ELSE tsvector_to_array(OLD.search) END);
           END IF;
           IF TG_OP <> 'DELETE' THEN
             INSERT INTO library.track_words (tenant_id, word, entity_id)
             SELECT NEW.tenant_id, w, NEW.entity_id
               FROM unnest(CASE WHEN same
                                THEN ARRAY(SELECT unnest(tsvector_to_array(NEW.search)) EXCEPT SELECT unnest(tsvector_to_array(OLD.search)))
                                ELSE tsvector_to_array(NEW.search) END) AS w
             ON CONFLICT DO NOTHING;
           END IF;
           RETURN NULL;
         END $$;`,
      )
      .execute(db);
  },
};
