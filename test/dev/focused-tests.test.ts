import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from './repository-root.js';

/**
 * Issue 24, item 8: a focused, skipped or todo test fails `npm test`. The lint of every workspace
 * (eslint.config.js) refuses them in its test files; scripts/test.sh also fails a run whose
 * summaries count a skipped or todo test.
 */
const root = repositoryRoot;

/** The workspaces of the root package.json (`packages/*` and the like expanded). */
function workspaces(): string[] {
  const globs = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  return globs.flatMap((glob) =>
    glob.endsWith('/*')
      ? readdirSync(join(root, glob.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
      : [glob],
  );
}

interface Linted {
  file: string;
  messages: Array<{ ruleId: string | null; message: string }>;
}

/** Lints each text as if it were the file named, with the repository's eslint.config.js, in one child process. */
function lint(files: Array<{ file: string; text: string }>): Promise<Linted[]> {
  const script = `
    import { ESLint } from 'eslint';
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = [];
    for (const { file, text } of JSON.parse(process.env.LINT_FILES)) {
      const [result] = await eslint.lintText(text, { filePath: file });
      out.push({ file, messages: (result?.messages ?? []).map(({ ruleId, message }) => ({ ruleId, message })) });
    }
    process.stdout.write(JSON.stringify(out));`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: root, env: { ...process.env, NODE_OPTIONS: '', LINT_FILES: JSON.stringify(files) }, timeout: 60_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Linted[])),
    );
  });
}

/**
 * A fixture's call, `callee(args)`, put together from its parts so that no line of this file reads
 * as a focused, skipped or todo test itself (the repository's check greps the added lines for them).
 */
const call = (callee: string, args: string) => `${callee}(${args})`;

const refusals = (linted: Linted): string[] =>
  linted.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message.split(':')[0]!);

test('eslint refuses a focused test in the test files of every workspace', async () => {
  const dirs = workspaces();
  expect(dirs).toEqual(expect.arrayContaining(['packages/platform', 'services/catalog', 'test']));
  const files = dirs.map((dir) => ({
    file: join(root, dir, dir === 'test' ? 'contract' : 'test', 'focused.test.ts'),
    text: `${call('test.only', "'runs alone', () => {\n  expect(1).toBe(1);\n}")};\n`,
  }));
  const linted = await lint(files);
  expect(linted.map((result) => [result.file, refusals(result)])).toEqual(
    files.map(({ file }) => [file, ['No focused, skipped or todo tests']]),
  );
}, 60_000);

test('eslint refuses .only, .skip, .todo, fit, fdescribe, xit, xtest and xdescribe, and lets ordinary tests be', async () => {
  const file = join(root, 'services/catalog/test/focused.test.ts');
  const refused = [
    `${call('describe.only', "'a', () => {}")};`,
    `${call('it.skip', "'a', () => {}")};`,
    `${call('test.todo', "'a'")};`,
    `${call('test.concurrent.only', "'a', async () => {}")};`,
    `${call('describe.skip.each', '[1]')}('a %s', () => {});`,
    `${call('fit', "'a', () => {}")};`,
    `${call('fdescribe', "'a', () => {}")};`,
    `${call('xit', "'a', () => {}")};`,
    `${call('xtest', "'a', () => {}")};`,
    `${call('xdescribe', "'a', () => {}")};`,
  ];
  const allowed =
    "describe('a', () => {\n  test.each([1])('b %s', () => {});\n  it('c', () => {});\n});\nconst o = { only: 1 };\nexport const n = o.only;\n";
  const linted = await lint([...refused.map((text) => ({ file, text })), { file, text: allowed }]);
  expect(linted.map((result) => refusals(result).length)).toEqual([...refused.map(() => 1), 0]);
}, 60_000);
