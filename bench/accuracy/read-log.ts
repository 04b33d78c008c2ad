/**
 * bench/accuracy/read-log.ts: every read of an evaluation set leaves a line in docs/benchmarks.md's
 * read log (and on the console), so no read is silent: the date, the design it scored (the commit,
 * whether the work tree differed from it, and a hash of the learned weight files) and the result.
 * The line goes at the end of the table under READ_LOG_MARKER.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const READ_LOG_MARKER = '<!-- evaluation read log: bench/accuracy/read-log.ts appends here -->';
export const WEIGHT_FILES = [
  'services/analysis/src/analyzers/key/key-weights.json',
  'services/analysis/src/analyzers/tempo/octave-weights.json',
];

/** The design being scored: commit, "+" when the analyzers' sources differ from it, and the weights' hash. */
export function designOf(root: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--short=10', 'HEAD');
  const changed = git('status', '--porcelain', '--', 'services/analysis/src').length > 0;
  const weights = createHash('sha256');
  for (const file of WEIGHT_FILES) weights.update(readFileSync(join(root, file)));
  return `${commit}${changed ? '+' : ''} weights ${weights.digest('hex').slice(0, 8)}`;
}

/** `markdown` with `row` added at the end of the read log's table. */
export function withReadLogRow(markdown: string, row: string): string {
  const lines = markdown.split('\n');
  const marker = lines.indexOf(READ_LOG_MARKER);
  if (marker < 0) throw new Error(`docs/benchmarks.md has no read log (${READ_LOG_MARKER})`);
  let end = marker + 1;
  while (end < lines.length && lines[end]!.startsWith('|')) end++;
  lines.splice(end, 0, row);
  return lines.join('\n');
}

/** Appends the read to docs/benchmarks.md and prints it; `result` names each set read. */
export function logRead(root: string, design: string, result: string): void {
  const row = `| ${new Date().toISOString().slice(0, 16).replace('T', ' ')} | ${design} | ${result} |`;
  const file = join(root, 'docs/benchmarks.md');
  writeFileSync(file, withReadLogRow(readFileSync(file, 'utf8'), row));
  process.stdout.write(`evaluation read logged in docs/benchmarks.md: ${row}\n`);
}
