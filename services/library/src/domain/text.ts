/**
 * The text rules of the library's search and sorts (decision 0101): text is folded to lower case
 * without accents (NFKD, combining marks dropped, `ß` → `ss`, …), and anything that is not a letter
 * or a digit separates words. Stored titles and artists and the words of `q` go through the same
 * function, so Postgres only sees plain words (`simple` text search configuration, no extension).
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/œ/g, 'oe')
    .replace(/ø/g, 'o')
    .replace(/ł/g, 'l')
    .replace(/đ/g, 'd')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The words of a folded text (at most `max`, the first ones). */
export function wordsOf(text: string, max = 16): string[] {
  const folded = foldText(text);
  return folded === '' ? [] : folded.split(' ').slice(0, max);
}

/**
 * A `to_tsquery('simple', …)` text for type-ahead: every word must occur, the last one as a prefix
 * (`bohemian & rhap:*`). Words hold only letters and digits, so nothing needs quoting. Null when
 * `q` has no word at all.
 */
export function typeAheadQuery(q: string): string | null {
  const words = wordsOf(q);
  if (words.length === 0) return null;
  return words.map((word, i) => (i === words.length - 1 ? `${word}:*` : word)).join(' & ');
}
