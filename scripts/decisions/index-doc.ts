/**
 * docs/decisions.md: the index of the decision log, generated from each record's title and status
 * paragraph by `npm run docs:decisions`; test/dev/decisions.test.ts fails when it is stale. It
 * stands beside the folder, not in it: the folder holds the records alone, each under 600 words.
 */
import { join, posix } from 'node:path';
import { DECISIONS_FOLDER, type Decision } from './read-decisions.js';
import type { Relation } from './status.js';

export const REGENERATE = 'npm run docs:decisions';

export const INDEX_FILE = join(DECISIONS_FOLDER, '..', 'decisions.md');

const link = (decision: Decision) => `[${decision.number}](decisions/${decision.file})`;
/** A link a record makes (relative to docs/decisions/), as the index beside the folder reaches it. */
const fromIndex = (href: string) => posix.normalize(posix.join('decisions', href));
const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderDecisionsIndex(decisions: Decision[]): string {
  const byNumber = new Map(decisions.map((decision) => [decision.number, decision]));
  const numbers = (decision: Decision, relation: Relation) =>
    decision.status.related[relation].map((number) => (byNumber.has(number) ? link(byNumber.get(number)!) : number)).join(', ');
  const rows = decisions.map((decision) => {
    const { state, currentState } = decision.status;
    const status = currentState ? `${state}; current state: [${currentState.title}](${fromIndex(currentState.href)})` : state;
    const older = [numbers(decision, 'supersedes'), numbers(decision, 'amends')];
    const history = [older[0] && `supersedes ${older[0]}`, older[1] && `amends ${older[1]}`].filter(Boolean).join('; ');
    return `| ${link(decision)} | ${cell(decision.title)} | ${status} | ${numbers(decision, 'supersededBy')} | ${numbers(decision, 'amendedBy')} | ${history} |`;
  });
  return [
    '# Decisions',
    '',
    `<!-- Generated from the records' titles and status paragraphs by \`${REGENERATE}\`. Do not edit by hand. -->`,
    '',
    'The decisions others must follow, one record each (`NNNN-title.md`: context, decision, consequences,',
    'status; under 600 words). A record is history: it is not rewritten when a later one changes it.',
    'Its status paragraph says what changed it, in both directions, and test/dev/decisions.test.ts',
    'checks that every link has its reverse:',
    '',
    '- it begins with `accepted`, `superseded by N` (all of it) or `partly superseded by N`;',
    '- `Supersedes N` / `Superseded by N` (also `partly superseded by`, `superseded in part by`) and',
    '  `Amends N` / `Amended by N`: the decision numbers after the verb, outside parentheses and up',
    '  to the end of the clause (`;` or the end of the sentence), are the decisions it relates;',
    '- `Current state: [page](../page.md)`: a living page holds the subject as it is now;',
    '- `Not in the tree:` then backticked paths: repository paths the record names that are gone (or that an',
    '  operator creates); every other path a record that is not wholly superseded names must exist.',
    '',
    ...livingPages(decisions),
    '| Decision | Title | Status | Superseded by | Amended by | Changes |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** The living pages the records point to, each with the records that are its history. */
function livingPages(decisions: Decision[]): string[] {
  const pages = new Map<string, Decision[]>();
  for (const decision of decisions) {
    const page = decision.status.currentState;
    const key = page && `[${page.title}](${fromIndex(page.href)})`;
    if (key) pages.set(key, [...(pages.get(key) ?? []), decision]);
  }
  if (pages.size === 0) return [];
  return [
    'Living pages (the current design of a subject; its decisions are how it got there):',
    '',
    ...[...pages].map(([page, history]) => `- ${page}: ${history.map(link).join(', ')}`),
    '',
  ];
}
