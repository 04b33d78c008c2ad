/**
 * Musical keys and the Camelot wheel (decision 0101): the `key` filter takes names (`A minor`,
 * `F# major`, `Bb min`) or Camelot codes (`8A`); tracks are matched on their Camelot code. With
 * `harmonic`, the compatible codes are added: the same number in the other mode, and one step
 * either way in the same mode.
 */
const PITCH_CLASSES: Record<string, number> = { c: 0, d: 2, e: 4, f: 5, g: 7, a: 9, b: 11 };

/** The Camelot code of a key: majors are B (8B = C major), minors A (8A = A minor); each step is a fifth. */
function camelotOf(pitchClass: number, minor: boolean): string {
  const reference = minor ? 9 : 0;
  for (let n = 1; n <= 12; n += 1) {
    if ((((reference + 7 * (n - 8)) % 12) + 12) % 12 === pitchClass) return `${n}${minor ? 'A' : 'B'}`;
  }
  throw new Error(`no Camelot code for pitch class ${pitchClass}`);
}

/** The Camelot code of one key as `key` takes it, e.g. `A minor` → `8A`, `8a` → `8A`; null if it is not a key. */
export function parseKey(raw: string): string | null {
  const text = raw.trim();
  const code = /^(1[0-2]|[1-9])([ABab])$/.exec(text);
  if (code) return `${code[1]}${code[2]!.toUpperCase()}`;
  const name = /^([A-Ga-g])([#b]?) +(major|minor|maj|min)$/i.exec(text);
  if (!name) return null;
  const base = PITCH_CLASSES[name[1]!.toLowerCase()]!;
  const shift = name[2] === '#' ? 1 : name[2] === 'b' ? -1 : 0;
  return camelotOf((base + shift + 12) % 12, name[3]!.toLowerCase().startsWith('min'));
}

/** The Camelot codes compatible with `code`: itself, the relative key and its two neighbours on the wheel. */
export function harmonicNeighbours(code: string): string[] {
  const n = Number(code.slice(0, -1));
  const mode = code.slice(-1);
  const step = (k: number): number => ((n - 1 + k + 12) % 12) + 1;
  return [code, `${n}${mode === 'A' ? 'B' : 'A'}`, `${step(-1)}${mode}`, `${step(1)}${mode}`];
}

/** The Camelot codes the `key` filter selects (null: the parameter is absent). */
export function keyFilter(key: string | undefined, harmonic: boolean | undefined): string[] | null {
  if (key === undefined) return null;
  const codes = key.split(',').map((k) => parseKey(k));
  const valid = codes.filter((c): c is string => c !== null);
  const all = harmonic ? valid.flatMap(harmonicNeighbours) : valid;
  return [...new Set(all)];
}
