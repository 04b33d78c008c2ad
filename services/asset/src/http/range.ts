import type { ByteRange } from '../persistence/blob/index.js';

/**
 * Interprets a `Range` header for a representation of `size` bytes. One range only
 * (`bytes=a-b`, `bytes=a-`, `bytes=-n`); a header that is absent, malformed or asks for several
 * ranges is ignored (the whole file is sent, as RFC 9110 allows). A range that starts past the
 * end is unsatisfiable (416).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
