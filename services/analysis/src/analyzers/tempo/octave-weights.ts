/**
 * The features of the tempo's octave choice, by name, in the order of OctaveEvidence.features
 * (tempo-estimate.ts says what each reads), and the weight file that names them (octave-weights.json:
 * what bench/accuracy/tune.ts learns, with its provenance).
 */
export const OCTAVE_FEATURES = [
  'offbeats of the slow level',
  'offbeats of the fast level',
  'low-band offbeats of the slow level',
  'low-band offbeats of the fast level',
  'octaves of the slow level from 120 BPM',
  'comb salience of the fast level against the slow',
  'offbeats of half the slow level',
  'harmony changes off the bar',
  'harmony at half a bar against at a bar',
  'onset presence of the fast level against the slow',
  'onset presence of the slow level against half it',
  'harmony at half a beat against at a beat',
  'harmony at a beat against at two beats',
  'strength off the slow beat',
  'constant',
] as const;
export type OctaveFeature = (typeof OCTAVE_FEATURES)[number];

export interface OctaveWeightsFile {
  about: string;
  provenance: Record<string, unknown>;
  weights: Record<OctaveFeature, number>;
}

/** The weights in the order of OctaveEvidence.features. */
export const octaveWeightsOf = (file: Pick<OctaveWeightsFile, 'weights'>): number[] =>
  OCTAVE_FEATURES.map((feature) => file.weights[feature]);

export function octaveWeightsFileOf(weights: readonly number[], about: string, provenance: Record<string, unknown>): OctaveWeightsFile {
  if (weights.length !== OCTAVE_FEATURES.length) throw new Error(`${weights.length} octave weights for ${OCTAVE_FEATURES.length} features`);
  return {
    about,
    provenance,
    weights: Object.fromEntries(OCTAVE_FEATURES.map((feature, i) => [feature, weights[i]!])) as Record<OctaveFeature, number>,
  };
}
