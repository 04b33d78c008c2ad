import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Each row of `library.track_words` carries the word's weight in its track (decision 0169):
 * `ts_rank` of the track's `search` for that word alone, in the primary key's INCLUDE part, so a
 * relevance search ranks the candidates from the words' index and reads only the tracks of its
 * page. `library.track_word_weight(search, word)` computes it (the word is quoted for `tsquery`, so
 * no text is parsed as operators). `library.sync_track_words()` keeps the weights: a word whose
 * weights of positions changed (it moved between title and artist, or occurs a different number of
 * times) is updated along with the words added; a word whose positions' weights are the same keeps
 * its weight, whatever its positions. The words removed are found with `ts_delete`. The existing rows are filled
 * in with both tables' forced row-level security lifted for the owner for the length of this
 * migration's transaction. Frozen in time.
 */
const SYNC_TRACK_WORDS = `
  CREATE OR REPLACE FUNCTION library.sync_track_words() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    same boolean := TG_OP = 'UPDATE' AND OLD.tenant_id = NEW.tenant_id AND OLD.entity_id = NEW.entity_id;
  BEGIN
    IF TG_OP <> 'INSERT' THEN
      DELETE FROM library.track_words
       WHERE tenant_id = OLD.tenant_id AND entity_id = OLD.entity_id
         AND word = ANY (tsvector_to_array(CASE WHEN same THEN ts_delete(OLD.search, tsvector_to_array(NEW.search)) ELSE OLD.search END));
    END IF;
    IF same AND (OLD.entity_type, OLD.has_dmrn, OLD.duration_ms, OLD.bpm, OLD.camelot, OLD.integrated_lufs)
                IS DISTINCT FROM (NEW.entity_type, NEW.has_dmrn, NEW.duration_ms, NEW.bpm, NEW.camelot, NEW.integrated_lufs) THEN
      UPDATE library.track_words
         SET entity_type = NEW.entity_type, has_dmrn = NEW.has_dmrn, duration_ms = NEW.duration_ms, bpm = NEW.bpm,
             camelot = NEW.camelot, integrated_lufs = NEW.integrated_lufs
       WHERE tenant_id = NEW.tenant_id AND entity_id = NEW.entity_id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
      INSERT INTO library.track_words AS t
             (tenant_id, word, entity_id, entity_type, has_dmrn, duration_ms, bpm, camelot, integrated_lufs, weight)
      SELECT NEW.tenant_id, n.lexeme, NEW.entity_id, NEW.entity_type, NEW.has_dmrn, NEW.duration_ms, NEW.bpm, NEW.camelot,
             NEW.integrated_lufs, library.track_word_weight(NEW.search, n.lexeme)
        FROM unnest(NEW.search) AS n
       WHERE NOT same OR NOT EXISTS (SELECT FROM unnest(OLD.search) AS o WHERE o.lexeme = n.lexeme AND o.weights = n.weights)
      ON CONFLICT (tenant_id, word, entity_id) DO UPDATE SET weight = EXCLUDED.weight;
    END IF;
    RETURN NULL;
  END $$;`;

export const trackWordsWeights: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE FUNCTION library.track_word_weight(search tsvector, word text) RETURNS real
           LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
             SELECT ts_rank(search, ('''' || replace(replace(word, '\\', '\\\\'), '''', '''''') || '''')::tsquery)
           $$;

         ALTER TABLE library.track_words ADD COLUMN weight real;

         ALTER TABLE library.tracks NO FORCE ROW LEVEL SECURITY;
         ALTER TABLE library.track_words NO FORCE ROW LEVEL SECURITY;
         UPDATE library.track_words w
            SET weight = library.track_word_weight(t.search, w.word)
           FROM library.tracks t
          WHERE t.tenant_id = w.tenant_id AND t.entity_id = w.entity_id;
         ALTER TABLE library.tracks FORCE ROW LEVEL SECURITY;
         ALTER TABLE library.track_words FORCE ROW LEVEL SECURITY;

         ALTER TABLE library.track_words
           ALTER COLUMN weight SET NOT NULL,
           DROP CONSTRAINT track_words_pkey,
           ADD PRIMARY KEY (tenant_id, word, entity_id) INCLUDE (entity_type, has_dmrn, duration_ms, bpm, camelot, integrated_lufs, weight);

         ${SYNC_TRACK_WORDS}`,
      )
      .execute(db);
  },
};
