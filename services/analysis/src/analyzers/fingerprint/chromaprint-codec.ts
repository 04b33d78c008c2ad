/**
 * Chromaprint's compressed fingerprint (the form fpcalc prints and AcoustID stores): a header
 * (algorithm byte, item count in 24 bits big-endian), then each item XOR the previous one as the
 * gaps between its set bits, packed as 3-bit values (7 and above: 7 plus the excess in a second
 * stream of 5-bit values), both streams little-endian bit-packed, in URL-safe base64 without
 * padding.
 */
export function compressFingerprint(raw: ArrayLike<number>, algorithm: number): string {
  const normal: number[] = [];
  const exceptional: number[] = [];
  let previous = 0;
  for (let i = 0; i < raw.length; i++) {
    let x = (raw[i]! ^ previous) >>> 0;
    previous = raw[i]! >>> 0;
    let lastBit = 0;
    for (let bit = 1; x !== 0; bit++, x >>>= 1) {
      if ((x & 1) === 0) continue;
      const gap = bit - lastBit;
      lastBit = bit;
      if (gap >= 7) {
        normal.push(7);
        exceptional.push(gap - 7);
      } else {
        normal.push(gap);
      }
    }
    normal.push(0);
  }
  const header = [algorithm & 0xff, (raw.length >>> 16) & 0xff, (raw.length >>> 8) & 0xff, raw.length & 0xff];
  const bytes = Uint8Array.from([...header, ...packBits(normal, 3), ...packBits(exceptional, 5)]);
  return Buffer.from(bytes).toString('base64url');
}

function packBits(values: number[], width: number): number[] {
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const value of values) {
    buffer |= value << bits;
    bits += width;
    while (bits >= 8) {
      out.push(buffer & 0xff);
      buffer >>>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out.push(buffer & 0xff);
  return out;
}
