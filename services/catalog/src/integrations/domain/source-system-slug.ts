/** Longest source system (the admin area's `SourceSystemName`). */
const MAX_LENGTH = 100;

/**
 * The source system derived from an integration's name (decision 0160): lower case, accents
 * dropped, every run of other characters one hyphen, none at either end ("Studio A playout" →
 * `studio-a-playout`); null when the name has no letter or digit to derive one from.
 */
export function sourceSystemOf(name: string): string | null {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_LENGTH)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? null : slug;
}
