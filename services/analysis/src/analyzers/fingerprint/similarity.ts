/** Sub-fingerprints per second of Chromaprint's default algorithm (11025 Hz, hop 1365.33 samples). */
const ITEMS_PER_SECOND = 11_025 / 1_365.333;
/** Alignments tried either way: a shift of up to 15 s (leading silence, a shorter intro). */
const MAX_OFFSET_ITEMS = Math.round(15 * ITEMS_PER_SECOND);
/** The shorter fingerprint must overlap the other over at least this share of itself. */
const MIN_OVERLAP = 0.5;

/**
 * Score at and above which two fingerprints are the same recording (decision 0084): a re-encode
 * (MP3, AAC, another rate) keeps most bits; unrelated audio differs in about half of them.
 */
export const DUPLICATE_SIMILARITY = 0.5;

export interface FingerprintMatch {
  /** 0 (unrelated) … 1 (the same bits). */
  similarity: number;
  /** Where `b`'s start lies in `a` at the best alignment (seconds; negative: before `a`'s start). */
  offsetSeconds: number;
}

/**
 * Compares two raw Chromaprint fingerprints: at each alignment within ±15 s, the share of
 * differing bits (BER) over the overlap; the best alignment's 1 - 2 × BER (0 for chance, 1 for
 * identical), scaled by how much of the longer fingerprint the overlap covers.
 */
export function compareFingerprints(a: ArrayLike<number>, b: ArrayLike<number>): FingerprintMatch {
  let best: FingerprintMatch = { similarity: 0, offsetSeconds: 0 };
  const shorter = Math.min(a.length, b.length);
  const longer = Math.max(a.length, b.length);
  if (shorter === 0) return best;
  for (let offset = -MAX_OFFSET_ITEMS; offset <= MAX_OFFSET_ITEMS; offset++) {
    const start = Math.max(0, offset);
    const end = Math.min(a.length, b.length + offset);
    const overlap = end - start;
    if (overlap < MIN_OVERLAP * shorter || overlap <= 0) continue;
    let differing = 0;
    for (let i = start; i < end; i++) differing += popcount((a[i]! ^ b[i - offset]!) >>> 0);
    const errorRate = differing / (32 * overlap);
    const similarity = Math.max(0, 1 - 2 * errorRate) * (overlap / longer);
    if (similarity > best.similarity) best = { similarity, offsetSeconds: offset / ITEMS_PER_SECOND };
  }
  return { similarity: Math.round(best.similarity * 1000) / 1000, offsetSeconds: Math.round(best.offsetSeconds * 100) / 100 };
}

/** The similarity alone, in [0, 1]. */
export function fingerprintSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return compareFingerprints(a, b).similarity;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
