import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Each row of `library.track_words` carries its track's filter columns (entity type, has DMRN,
 * duration, BPM, Camelot key, loudness), in the primary key's INCLUDE part (decision 0112), so a
 * search applies its filters while it reads the words' index and reads only the tracks that pass
 * them. `library.sync_track_words()` keeps the copies equal to the track: new words get the
 * track's values, and a change of any of them rewrites the track's other words; the update trigger
 * also fires on those changes. The existing rows are filled in with both tables' forced row-level
 * security lifted for the owner for the length of this migration's transaction. Frozen in time.
 */
/** The trigger function: words added, removed and (on a change of a copied column) rewritten. */
const SYNC_TRACK_WORDS = `
  CREATE OR REPLACE FUNCTION library.sync_track_words() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF same AND (OLD.entity_type, OLD.has_dmrn, OLD.duration_ms, OLD.bpm, OLD.camelot, OLD.integrated_lufs)
                IS DISTINCT FROM (NEW.entity_type, NEW.has_dmrn, NEW.duration_ms, NEW.bpm, NEW.camelot, NEW.integrated_lufs) THEN
      UPDATE library.track_words
         SET entity_type = NEW.entity_type, has_dmrn = NEW.has_dmrn, duration_ms = NEW.duration_ms, bpm = NEW.bpm,
             camelot = NEW.camelot, integrated_lufs = NEW.integrated_lufs
       WHERE tenant_id = NEW.tenant_id AND entity_id = NEW.entity_id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
      INSERT INTO library.track_words (tenant_id, word, entity_id, entity_type, has_dmrn, duration_ms, bpm, camelot, integrated_lufs)
      SELECT NEW.tenant_id, w, NEW.entity_id, NEW.entity_type, NEW.has_dmrn, NEW.duration_ms, NEW.bpm, NEW.camelot, NEW.integrated_lufs
        FROM unnest(CASE WHEN same
                         THEN ARRAY(SELECT unnest(tsvector_to_array(NEW.search)) EXCEPT SELECT unnest(tsvector_to_array(OLD.search)))
                         ELSE tsvector_to_array(NEW.search) END) AS w
      ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
  END $$;`;

export const trackWordsFilters: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `ALTER TABLE library.track_words
           ADD COLUMN entity_type text,
           ADD COLUMN has_dmrn boolean,
           ADD COLUMN duration_ms integer,
           ADD COLUMN bpm double precision,
           ADD COLUMN camelot text,
           ADD COLUMN integrated_lufs double precision;

         ALTER TABLE library.tracks NO FORCE ROW LEVEL SECURITY;
         ALTER TABLE library.track_words NO FORCE ROW LEVEL SECURITY;
         UPDATE library.track_words w
            SET entity_type = t.entity_type, has_dmrn = t.has_dmrn, duration_ms = t.duration_ms, bpm = t.bpm,
                camelot = t.camelot, integrated_lufs = t.integrated_lufs
           FROM library.tracks t
          WHERE t.tenant_id = w.tenant_id AND t.entity_id = w.entity_id;
         ALTER TABLE library.tracks FORCE ROW LEVEL SECURITY;
         ALTER TABLE library.track_words FORCE ROW LEVEL SECURITY;

         ALTER TABLE library.track_words
           ALTER COLUMN entity_type SET NOT NULL,
           ALTER COLUMN has_dmrn SET NOT NULL,
           DROP CONSTRAINT track_words_pkey,
           ADD PRIMARY KEY (tenant_id, word, entity_id) INCLUDE (entity_type, has_dmrn, duration_ms, bpm, camelot, integrated_lufs);

         ${SYNC_TRACK_WORDS}

         DROP TRIGGER tracks_words_update ON library.tracks;
         CREATE TRIGGER tracks_words_update AFTER UPDATE ON library.tracks
           FOR EACH ROW WHEN (OLD.search IS DISTINCT FROM NEW.search OR OLD.tenant_id <> NEW.tenant_id OR OLD.entity_id <> NEW.entity_id
                              OR (OLD.entity_type, OLD.has_dmrn, OLD.duration_ms, OLD.bpm, OLD.camelot, OLD.integrated_lufs)
                                 IS DISTINCT FROM (NEW.entity_type, NEW.has_dmrn, NEW.duration_ms, NEW.bpm, NEW.camelot, NEW.integrated_lufs))
           EXECUTE FUNCTION library.sync_track_words();`,
      )
      .execute(db);
  },
};
