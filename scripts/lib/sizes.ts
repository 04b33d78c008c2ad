import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** The limits of the tree (issue 16): lines of a source file, and code lines of a function outside tests and benchmarks. */
export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 60;

/** Source files: TypeScript, JavaScript and shell, wherever git tracks them. */
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|sh)$/;
const SCRIPT = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
/** Tests and benchmarks: their files count, their functions (a `describe` body, a scenario) do not. */
const TEST_OR_BENCH = /(^|\/)(test|bench)\/|\.test\.[cm]?[jt]s$/;

export interface SizeFinding {
  file: string;
  /** 1-based line of the file's start or of the function. */
  line: number;
  what: 'file' | 'function';
  /** The function's name as far as it has one. */
  name?: string;
  lines: number;
  limit: number;
}

/** The file is over `MAX_FILE_LINES` lines (a final newline ends the last line, it does not start one). */
export function fileFinding(file: string, text: string): SizeFinding | null {
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  return lines > MAX_FILE_LINES ? { file, line: 1, what: 'file', lines, limit: MAX_FILE_LINES } : null;
}

/** Lines of `source` holding code: neither blank nor only comments (as eslint's skipBlankLines and skipComments). */
function codeLines(source: ts.SourceFile): Set<number> {
  const lines = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isJSDoc(node)) return;
    const children = node.getChildren(source);
    if (children.length === 0 && node.kind !== ts.SyntaxKind.EndOfFileToken) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      for (let line = first; line <= last; line += 1) lines.add(line);
    }
    children.forEach(visit);
  };
  visit(source);
  return lines;
}

function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

/** Functions of a TypeScript or JavaScript file with more than `MAX_FUNCTION_LINES` code lines. */
export function functionFindings(file: string, text: string): SizeFinding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const code = codeLines(source);
  const findings: SizeFinding[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      let lines = 0;
      for (let line = first; line <= last; line += 1) if (code.has(line)) lines += 1;
      if (lines > MAX_FUNCTION_LINES) {
        const name = functionName(node as ts.FunctionLikeDeclaration, source);
        findings.push({ file, line: first + 1, what: 'function', name, lines, limit: MAX_FUNCTION_LINES });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

/** Every finding of one file; functions are checked outside tests and benchmarks only. */
export function checkFile(file: string, text: string): SizeFinding[] {
  const findings: SizeFinding[] = [];
  const whole = fileFinding(file, text);
  if (whole) findings.push(whole);
  if (SCRIPT.test(file) && !TEST_OR_BENCH.test(file)) findings.push(...functionFindings(file, text));
  return findings;
}

/** The source files git tracks in `root` (and the untracked ones it does not ignore), relative to it. */
export function sourceFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))].filter((file) => SOURCE.test(file) && !file.includes('node_modules/')).sort();
}

/** The findings of the tree at `root`, minus the files `exempt` names (a prefix of their path). */
export function checkTree(root: string, exempt: readonly string[] = []): SizeFinding[] {
  const findings: SizeFinding[] = [];
  for (const file of sourceFiles(root)) {
    if (exempt.some((prefix) => file.startsWith(prefix))) continue;
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue; // deleted in the working tree, not yet in the index
    }
    findings.push(...checkFile(file, text));
  }
  return findings;
}

export function describeFinding(f: SizeFinding): string {
  return f.what === 'file'
    ? `${f.file}: ${f.lines} lines (at most ${f.limit})`
    : `${f.file}:${f.line}: function ${f.name} has ${f.lines} lines of code (at most ${f.limit})`;
}
