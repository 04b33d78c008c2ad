/**
 * bench/accuracy/homophonic-variants.ts: how the tempo (and key) hold when chorale-like music is
 * written as chorales often are and the tuning's homophonic pieces are not: three beats a bar, an
 * upbeat, a fermata at each cadence, a Picardy third, middle phrases in a closely related key,
 * eighth-note motion at three densities, secondary dominants (homophonic.ts Writing), each alone
 * and some together. Reads the tuning split only: every other
 * homophonic tuning piece, clean and without a spoken intro, written plainly and in each way (new
 * pieces, rendered once into the cache), scored with the committed weights, so the rows compare the
 * writings, not designs. Since decision 0192 those weights learned from these seeds written in
 * eighths, so how a design generalises is tune.ts tempo's to say (across fonts), not this.
 * Prints per writing Acc1, Acc2, the misses by kind and the key's weighted score:
 *   node --conditions=source --import tsx bench/accuracy/homophonic-variants.ts
 */
import { tuningCorpus, type Piece } from './corpus.js';
import { keyAndBpmOf } from './estimators.js';
import { type Writing } from './homophonic.js';
import { acc1, acc2, mirexScore, missKind, parseKey } from './metrics.js';
import { ANALYSIS_RATE, decodedForAnalysis, renderPieces } from './render.js';

const VARIANTS: Array<[string, Writing]> = [
  ['plain', {}],
  ['triple', { triple: true }],
  ['pickup', { pickup: true }],
  ['fermata', { fermata: true }],
  ['picardy', { picardy: true }],
  ['modulating', { modulating: true }],
  ['modulating, picardy', { modulating: true, picardy: true }],
  ['busy 0.3', { busy: 0.3 }],
  ['busy 0.5', { busy: 0.5 }],
  ['busy 0.8', { busy: 0.8 }],
  ['secondary 0.3', { secondary: 0.3 }],
  ['secondary 0.6', { secondary: 0.6 }],
  ['secondary 0.3, modulating, picardy, busy 0.5', { secondary: 0.3, modulating: true, picardy: true, busy: 0.5 }],
  ['triple, pickup and busy 0.5', { triple: true, pickup: true, busy: 0.5 }],
];

/** A tuning homophonic piece written another way: clean, no intro, as long in seconds (a bar of three is shorter). */
function written(piece: Piece, name: string, writing: Writing): Piece {
  const spec = piece.homophonic!;
  const bars = writing.triple ? Math.round((spec.bars * 4) / 3) : spec.bars;
  const id = `${piece.id}-written-${name.replace(/[ ,.]+/g, '-')}`;
  return { ...piece, id, degradation: 'clean', speech: null, tuningCents: 0, homophonic: { ...spec, bars, writing } };
}

const originals = tuningCorpus(['homophonic']).filter((_, i) => i % 2 === 0);
const pieces = VARIANTS.flatMap(([name, writing]) => originals.map((piece) => ({ name, piece: written(piece, name, writing) })));
const files = await renderPieces(
  pieces.map(({ piece }) => piece),
  (line) => process.stderr.write(`${line}\n`),
);
console.log(`${originals.length} homophonic tuning pieces, each written ${VARIANTS.length} ways, clean, committed weights`);
for (const [name] of VARIANTS) {
  const group = pieces.filter((p) => p.name === name).map((p) => p.piece);
  const misses = new Map<string, number>();
  let [right, near, key] = [0, 0, 0];
  for (const piece of group) {
    const estimate = keyAndBpmOf(decodedForAnalysis(files.get(piece.id)!), ANALYSIS_RATE);
    const bpm = estimate.bpm;
    key += mirexScore(piece.truth, parseKey(estimate.key));
    if (acc1(piece.truth.bpm, bpm)) right++;
    else {
      // Other misses by their ratio to the truth (3/2 and 4/3 locks show as ×1.50 and ×1.33).
      const kind = missKind(piece.truth.bpm, bpm);
      const label = kind === 'other' ? `×${(bpm! / piece.truth.bpm).toFixed(2)}` : kind;
      misses.set(label, (misses.get(label) ?? 0) + 1);
      if (process.env.DETAIL) console.log(`  ${name} ${piece.id} ${piece.homophonic!.ensemble} ${piece.truth.bpm} → ${bpm?.toFixed(1)}`);
    }
    if (acc2(piece.truth.bpm, bpm)) near++;
  }
  const share = (count: number) => ((100 * count) / group.length).toFixed(1);
  const missed = [...misses].map(([kind, count]) => `${kind} ${count}`).join(', ') || 'none';
  console.log(
    `${name} (${group.length}): Acc1 ${share(right)} Acc2 ${share(near)} misses ${missed}; key ${(key / group.length).toFixed(3)}`,
  );
}
