import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ESLint } from 'eslint';
import { repositoryRoot } from './repository-root.js';

/**
 * The size limits (decisions 0063 and 0127): eslint's `max-lines` and
 * `max-lines-per-function` in eslint.config.js, which the lint of every workspace runs. These
 * tests hold the rules to the limits on made-up text, and check that every source file of the
 * tree is in some workspace's lint (so the rules reach it without a second whole-tree pass here).
 */
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 60;
const SIZE_RULES = new Set(['max-lines', 'max-lines-per-function']);
const eslint = new ESLint({ cwd: repositoryRoot, ruleFilter: ({ ruleId }) => SIZE_RULES.has(ruleId), errorOnUnmatchedPattern: false });

interface Finding {
  file: string;
  line: number;
  rule: string | null;
  message: string;
}

function findings(results: ESLint.LintResult[]): Finding[] {
  return results.flatMap((result) =>
    result.messages.map((m) => ({
      file: result.filePath.slice(repositoryRoot.length + 1),
      line: m.line,
      rule: m.ruleId,
      message: m.message,
    })),
  );
}

async function check(file: string, text: string): Promise<Finding[]> {
  return findings(await eslint.lintText(text, { filePath: join(repositoryRoot, file) }));
}

const lines = (n: number, line: (i: number) => string): string => Array.from({ length: n }, (_, i) => line(i)).join('\n') + '\n';
const fn = (name: string, statements: number, extra = ''): string =>
  `export function ${name}(): number {\n  let x = 0;\n${extra}${lines(statements - 4, () => '  x += 1;')}  return x;\n}\n`;

test('a file over 400 lines is a finding, one of 400 is not; blank and comment lines count', async () => {
  expect(
    await check(
      'services/x/src/a.ts',
      lines(MAX_FILE_LINES, (i) => (i % 2 ? '' : '// a line')),
    ),
  ).toEqual([]);
  expect(
    await check(
      'services/x/src/a.ts',
      lines(MAX_FILE_LINES + 1, (i) => (i % 2 ? '' : '// a line')),
    ),
  ).toEqual([{ file: 'services/x/src/a.ts', line: MAX_FILE_LINES + 1, rule: 'max-lines', message: expect.stringContaining('(401)') }]);
});

test('a function over 60 lines of code is a finding; blank and comment lines do not count', async () => {
  expect(await check('services/x/src/f.ts', fn('fits', MAX_FUNCTION_LINES))).toEqual([]);
  const padded = fn('padded', MAX_FUNCTION_LINES, lines(20, (i) => (i % 2 ? '' : '  // why')) + '  /**\n   * more\n   */\n');
  expect(await check('services/x/src/f.ts', padded)).toEqual([]);
  expect(await check('services/x/src/f.ts', fn('long', MAX_FUNCTION_LINES + 1))).toEqual([
    {
      file: 'services/x/src/f.ts',
      line: 1,
      rule: 'max-lines-per-function',
      message: expect.stringContaining("'long' has too many lines (61)"),
    },
  ]);
  const arrow = `export const handler = async () => {\n${lines(MAX_FUNCTION_LINES, () => '  await 1;')}};\n`;
  expect(await check('scripts/g.ts', arrow)).toMatchObject([{ rule: 'max-lines-per-function', line: 1 }]);
  const method = `export class C {\n  run() {\n${lines(MAX_FUNCTION_LINES - 1, () => '    void 1;')}  }\n}\n`;
  expect(await check('packages/p/src/c.js', method)).toMatchObject([{ rule: 'max-lines-per-function', line: 2 }]);
  const iife = `void (() => {\n${lines(MAX_FUNCTION_LINES - 1, () => '  void 1;')}})();\n`;
  expect(await check('services/x/src/i.ts', iife)).toMatchObject([{ rule: 'max-lines-per-function' }]);
});

test('functions of tests and benchmarks are not checked, their files are', async () => {
  for (const file of ['services/x/test/a.ts', 'test/contract/a.test.ts', 'bench/x/run.ts', 'packages/p/src/a.test.ts']) {
    expect(await check(file, fn('scenario', MAX_FUNCTION_LINES + 10))).toEqual([]);
    expect(
      await check(
        file,
        lines(MAX_FILE_LINES + 1, () => ''),
      ),
    ).toMatchObject([{ rule: 'max-lines' }]);
  }
});

/** The files git tracks (and the untracked ones it does not ignore) that are in the working tree. */
function treeFiles(pattern: RegExp): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: repositoryRoot,
    encoding: 'utf8',
  });
  return listed
    .split('\0')
    .filter((file) => pattern.test(file) && !file.includes('node_modules/'))
    .filter((file) => existsSync(join(repositoryRoot, file))); // deleted in the working tree, not yet in the index
}

/** The workspaces (the root's `workspaces` globs, one level deep). */
function workspaces(): string[] {
  const { workspaces: globs } = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { workspaces: string[] };
  return treeFiles(/(^|\/)package\.json$/)
    .map((file) => posix.dirname(file))
    .filter((dir) => globs.some((glob) => pathPattern(glob).test(dir)));
}

/** A path of a lint script (`*` within one folder) as a pattern of the path and everything below it. */
function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*');
  return new RegExp(`^${escaped}(/.*)?$`);
}

/** What `npm run lint` of workspace `dir` lints: the paths given to eslint, from the repository root. */
function lintedBy(dir: string): RegExp[] {
  const { scripts } = JSON.parse(readFileSync(join(repositoryRoot, dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const lint = scripts?.lint ?? '';
  expect(lint).toMatch(/^eslint /);
  return lint
    .split(/\s+/)
    .slice(1)
    .filter((arg) => !arg.startsWith('-'))
    .map((arg) => pathPattern(posix.normalize(posix.join(dir, arg))));
}

test("every source file of the tree is in some workspace's lint, so the size rules reach it", () => {
  const linted = workspaces().flatMap(lintedBy);
  const sources = treeFiles(/\.(ts|tsx|mts|cts|js|mjs|cjs)$/);
  expect(sources.length).toBeGreaterThan(100);
  expect(sources.filter((file) => !linted.some((pattern) => pattern.test(file)))).toEqual([]);
});

test('no shell script is over 400 lines either (eslint reads no shell)', () => {
  const long = treeFiles(/\.sh$/)
    .map((file) => ({ file, text: readFileSync(join(repositoryRoot, file), 'utf8') }))
    // A final newline ends the last line, it does not start one.
    .map(({ file, text }) => ({ file, lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0) }))
    .filter(({ lines }) => lines > MAX_FILE_LINES);
  expect(long).toEqual([]);
});
