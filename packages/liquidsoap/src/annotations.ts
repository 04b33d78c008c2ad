/** What the catalog says of a song's file, as the playlist line needs it. */
export interface TrackFacts {
  entityId: string;
  versionId: string;
  title: string;
  artist: string | null;
  /** The file's length, when known. */
  durationMs: number | null;
  /** The version's markers by type (cue_in, cue_out, segue, intro_end, outro_start). */
  markers: Partial<Record<string, number>>;
  /** The `loudness` analysis' integrated loudness; null when not analysed (or silence). */
  integratedLufs: number | null;
}

/** The gain that brings `integratedLufs` to `targetLufs`, as the factor `amplify` multiplies by; 1 when unknown. */
export function amplifyFactor(integratedLufs: number | null, targetLufs: number): number {
  if (integratedLufs === null) return 1;
  return 10 ** ((targetLufs - integratedLufs) / 20);
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** A value inside `annotate:`'s double quotes: a quote or backslash escaped, no line break. */
function quoted(value: string): string {
  return `"${value.replace(/[\r\n]+/g, ' ').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * The metadata Liquidsoap reads from the line: `liq_cue_in`/`liq_cue_out` (seconds, for `cue_cut`),
 * `liq_amplify` (for `amplify(override="liq_amplify")`), `liq_cross_duration` from the segue
 * marker to the cue out (for `crossfade`), title, artist and the catalog's ids.
 */
export function annotationsOf(facts: TrackFacts, targetLufs: number): Array<[string, string]> {
  const { markers } = facts;
  const fields: Array<[string, string]> = [];
  if (markers.cue_in !== undefined) fields.push(['liq_cue_in', seconds(markers.cue_in)]);
  if (markers.cue_out !== undefined) fields.push(['liq_cue_out', seconds(markers.cue_out)]);
  const end = markers.cue_out ?? facts.durationMs;
  if (markers.segue !== undefined && end !== null && end !== undefined && end > markers.segue)
    fields.push(['liq_cross_duration', seconds(end - markers.segue)]);
  if (markers.intro_end !== undefined) fields.push(['catalog_intro_end', seconds(markers.intro_end)]);
  if (markers.outro_start !== undefined) fields.push(['catalog_outro_start', seconds(markers.outro_start)]);
  fields.push(['liq_amplify', amplifyFactor(facts.integratedLufs, targetLufs).toFixed(6)]);
  fields.push(['title', facts.title]);
  if (facts.artist !== null) fields.push(['artist', facts.artist]);
  fields.push(['catalog_entity_id', facts.entityId], ['catalog_version_id', facts.versionId]);
  return fields;
}

/** One M3U line: `annotate:k="v",…:<path>`. */
export function playlistLine(facts: TrackFacts, targetLufs: number, path: string): string {
  const fields = annotationsOf(facts, targetLufs).map(([key, value]) => `${key}=${quoted(value)}`);
  return `annotate:${fields.join(',')}:${path}`;
}
