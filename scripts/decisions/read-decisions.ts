/**
 * The decision records of docs/decisions (`NNNN-title.md`): number, title, status paragraph and
 * text, read for the generated index (`npm run docs:decisions`) and the tests of the log.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStatus, type Status } from './status.js';

export const DECISIONS_FOLDER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'decisions');
export const DECISION_FILE = /^(\d{4})-[a-z0-9-]+\.md$/;

export interface Decision {
  number: string;
  file: string;
  title: string;
  /** The status paragraph as written. */
  statusText: string;
  status: Status;
  text: string;
}

export function readDecisions(folder: string = DECISIONS_FOLDER): Decision[] {
  return readdirSync(folder)
    .filter((file) => DECISION_FILE.test(file))
    .sort()
    .map((file) => readDecision(file, readFileSync(join(folder, file), 'utf8')));
}

/** One record: `# NNNN Title` on its first line, then the paragraph that begins `Status:`. */
export function readDecision(file: string, text: string): Decision {
  const number = DECISION_FILE.exec(file)![1]!;
  const lines = text.split('\n');
  const heading = /^# (\d{4}):? (.+)$/.exec(lines[0] ?? '');
  if (!heading || heading[1] !== number) throw new Error(`${file}: the first line is "# ${number} <title>"`);
  const start = lines.findIndex((line) => line.startsWith('Status:'));
  if (start < 0) throw new Error(`${file}: no line begins with "Status:"`);
  let end = start + 1;
  while (end < lines.length && lines[end]!.trim() !== '' && !lines[end]!.startsWith('#')) end++;
  const statusText = lines.slice(start, end).join('\n');
  try {
    return { number, file, title: heading[2]!.trim(), statusText, status: parseStatus(statusText), text };
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
}
