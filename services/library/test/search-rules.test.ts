import { harmonicNeighbours, keyFilter, parseKey } from '../src/domain/keys.js';
import { foldText, typeAheadQuery } from '../src/domain/text.js';

/** The text and key rules of the library's search (decision 0101). */
test('text is folded: accents, case and punctuation ignored, a few letters spelled out', () => {
  expect(foldText('Café del Mar')).toBe('cafe del mar');
  expect(foldText('  Mötley Crüe — SIGUR RÓS!! ')).toBe('motley crue sigur ros');
  expect(foldText('Straße, Ærø, Œuvre, Łódź')).toBe('strasse aero oeuvre lodz');
  expect(foldText('AC/DC: Back-in-Black')).toBe('ac dc back in black');
  expect(foldText('ﬁne ①')).toBe('fine 1');
});

test('q becomes a query of every word, the last one as a prefix; none without a letter or digit', () => {
  expect(typeAheadQuery('Bohemian RHAP')).toBe('bohemian & rhap:*');
  expect(typeAheadQuery('café')).toBe('cafe:*');
  expect(typeAheadQuery("o'brien & co | x")).toBe('o & brien & co & x:*');
  expect(typeAheadQuery(' - !! ')).toBeNull();
});

test('keys: names and Camelot codes, and the harmonic neighbours on the wheel', () => {
  expect(['A minor', 'C major', 'F# minor', 'Bb min', 'Db maj', 'b minor', 'bb minor', 'E major', '8a', '12B'].map(parseKey)).toEqual([
    '8A',
    '8B',
    '11A',
    '3A',
    '3B',
    '10A',
    '3A',
    '12B',
    '8A',
    '12B',
  ]);
  expect(parseKey('H minor')).toBeNull();
  expect(harmonicNeighbours('8A')).toEqual(['8A', '8B', '7A', '9A']);
  expect(harmonicNeighbours('1B')).toEqual(['1B', '1A', '12B', '2B']);
  expect(harmonicNeighbours('12A')).toEqual(['12A', '12B', '11A', '1A']);
  expect(keyFilter('A minor,8A', false)).toEqual(['8A']);
  expect(keyFilter('C major', true)).toEqual(['8B', '8A', '7B', '9B']);
  expect(keyFilter(undefined, true)).toBeNull();
});
