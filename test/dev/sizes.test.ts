import { checkFile, checkTree, MAX_FILE_LINES, MAX_FUNCTION_LINES } from '../../scripts/lib/sizes.js';
import { repositoryRoot } from '../../scripts/check-sizes.js';

/** The size limits of issue 16 as `npm test` checks them (scripts/check-sizes.ts). */
const lines = (n: number, line: (i: number) => string): string => Array.from({ length: n }, (_, i) => line(i)).join('\n') + '\n';
const fn = (name: string, statements: number, extra = ''): string =>
  `export function ${name}(): number {\n  let x = 0;\n${extra}${lines(statements - 4, () => '  x += 1;')}  return x;\n}\n`;

test('a file over 400 lines is a finding, one of 400 is not', () => {
  expect(
    checkFile(
      'a.ts',
      lines(MAX_FILE_LINES, () => '// a line'),
    ),
  ).toEqual([]);
  expect(
    checkFile(
      'a.ts',
      lines(MAX_FILE_LINES + 1, () => '// a line'),
    ),
  ).toEqual([{ file: 'a.ts', line: 1, what: 'file', lines: MAX_FILE_LINES + 1, limit: MAX_FILE_LINES }]);
});

test('a function over 60 lines of code is a finding; blank and comment lines do not count', () => {
  expect(checkFile('src/f.ts', fn('fits', MAX_FUNCTION_LINES))).toEqual([]);
  const padded = fn('padded', MAX_FUNCTION_LINES, lines(20, (i) => (i % 2 ? '' : '  // why')) + '  /**\n   * more\n   */\n');
  expect(checkFile('src/f.ts', padded)).toEqual([]);
  expect(checkFile('src/f.ts', fn('long', MAX_FUNCTION_LINES + 1))).toEqual([
    { file: 'src/f.ts', line: 1, what: 'function', name: 'long', lines: MAX_FUNCTION_LINES + 1, limit: MAX_FUNCTION_LINES },
  ]);
  const arrow = `export const handler = async () => {\n${lines(MAX_FUNCTION_LINES, () => '  await 1;')}};\n`;
  expect(checkFile('src/g.ts', arrow)).toMatchObject([{ what: 'function', name: 'handler' }]);
});

test('functions of tests and benchmarks are not checked, their files are', () => {
  for (const file of ['services/x/test/a.ts', 'bench/x/run.ts', 'packages/p/src/a.test.ts']) {
    expect(checkFile(file, fn('scenario', MAX_FUNCTION_LINES + 10))).toEqual([]);
    expect(
      checkFile(
        file,
        lines(MAX_FILE_LINES + 1, () => ''),
      ),
    ).toMatchObject([{ what: 'file' }]);
  }
});

test('the tree is within the limits, every service included', () => {
  expect(checkTree(repositoryRoot)).toEqual([]);
});
