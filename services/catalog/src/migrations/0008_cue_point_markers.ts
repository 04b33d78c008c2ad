import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Markers from analyses (decision 0088): an entity type may ask that the cue points of
 * its versions' analyses become their markers (`cue_point_markers`, off by default), and a version
 * remembers who wrote its markers last (`markers_set_by`: 'hand' or 'analysis'), because markers
 * set by hand always win. Markers written before this migration were set by hand. Frozen in time.
 */
export const cuePointMarkers: Migration = {
  async up(db: Kysely<unknown>) {
    await sql
      .raw(
        `ALTER TABLE catalog.entity_types ADD COLUMN cue_point_markers boolean NOT NULL DEFAULT false;
         ALTER TABLE catalog.versions ADD COLUMN markers_set_by text CHECK (markers_set_by IN ('hand', 'analysis'));
         UPDATE catalog.versions SET markers_set_by = 'hand' WHERE markers <> '[]'::jsonb;`,
      )
      .execute(db);
  },
};
