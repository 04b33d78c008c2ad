import { sql, type Kysely, type Migration } from 'kysely';
import { enableTenantRlsV1 } from '@catalog/platform';

/** Results larger than this (bytes of their JSON) are kept in parts of this size (the values of 2026-11, frozen here). */
const INLINE_MAX_BYTES = 262_144;
const PART_BYTES = 262_144;

/** The summary of a result as a listing shows it, by type (decision 0113). */
const SUMMARY = `CASE type
           WHEN 'tempo' THEN (result - 'beatsMs') || jsonb_build_object('beatCount', coalesce(jsonb_array_length(result -> 'beatsMs'), 0))
           WHEN 'waveform' THEN result - 'data'
           WHEN 'fingerprint' THEN jsonb_build_object('algorithm', result -> 'algorithm', 'durationMs', result -> 'durationMs',
             'duplicateCount', coalesce(jsonb_array_length(result -> 'duplicates'), 0))
           ELSE result
         END`;

/**
 * Results of any size (decision 0113): each succeeded job has a `summary` of its result
 * (what listings show) and `result_bytes` (the size of the result's JSON); a result over 256 KiB
 * is kept in `job_result_parts` (256 KiB each, in order) instead of `result`, and is read part by
 * part. Existing jobs get their summaries, sizes and parts here. Frozen in time.
 */
export const resultParts: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `CREATE TABLE analysis.job_result_parts (
           tenant_id uuid NOT NULL,
           job_id uuid NOT NULL REFERENCES analysis.jobs (id) ON DELETE CASCADE,
           part integer NOT NULL CHECK (part >= 0),
           bytes bytea NOT NULL,
           PRIMARY KEY (job_id, part)
         );
         ALTER TABLE analysis.jobs ADD COLUMN summary jsonb, ADD COLUMN result_bytes integer;
         UPDATE analysis.jobs SET summary = ${SUMMARY}, result_bytes = octet_length(result::text) WHERE status = 'SUCCEEDED';
         INSERT INTO analysis.job_result_parts (tenant_id, job_id, part, bytes)
           SELECT j.tenant_id, j.id, n, substring(j.body FROM n * ${PART_BYTES} + 1 FOR ${PART_BYTES})
           FROM (SELECT tenant_id, id, convert_to(result::text, 'UTF8') AS body FROM analysis.jobs
                 WHERE status = 'SUCCEEDED' AND result_bytes > ${INLINE_MAX_BYTES}) j,
                generate_series(0, (octet_length(j.body) - 1) / ${PART_BYTES}) n;
         DO $$
         DECLARE name text;
         BEGIN
           FOR name IN SELECT conname FROM pg_constraint
             WHERE conrelid = 'analysis.jobs'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%result IS NOT NULL%'
           LOOP EXECUTE format('ALTER TABLE analysis.jobs DROP CONSTRAINT %I', name);
           END LOOP;
         END $$;
         UPDATE analysis.jobs SET result = NULL WHERE status = 'SUCCEEDED' AND result_bytes > ${INLINE_MAX_BYTES};
         ALTER TABLE analysis.jobs
           ADD CONSTRAINT jobs_result_once_succeeded CHECK ((status = 'SUCCEEDED') = (result_bytes IS NOT NULL AND summary IS NOT NULL)),
           ADD CONSTRAINT jobs_result_inline_or_parts CHECK (result IS NULL OR status = 'SUCCEEDED');`,
      )
      .execute(db);
    await enableTenantRlsV1(db, 'analysis', 'job_result_parts');
  },
};
