import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { INDEX_FILE, REGENERATE, renderDecisionsIndex } from '../../scripts/decisions/index-doc.js';
import { missingPaths } from '../../scripts/decisions/named-paths.js';
import { readDecision, readDecisions } from '../../scripts/decisions/read-decisions.js';
import { parseStatus, type Relation } from '../../scripts/decisions/status.js';
import { repositoryRoot } from './repository-root.js';

/** The decision log: its index is current, every supersede/amend link has its reverse, the paths it names exist. */
const decisions = readDecisions();
const byNumber = new Map(decisions.map((decision) => [decision.number, decision]));
const REVERSE: Record<Relation, Relation> = {
  supersedes: 'supersededBy',
  supersededBy: 'supersedes',
  amends: 'amendedBy',
  amendedBy: 'amends',
};
const WORDS: Record<Relation, string> = {
  supersedes: 'Supersedes',
  supersededBy: 'Superseded by',
  amends: 'Amends',
  amendedBy: 'Amended by',
};

test(`docs/decisions.md is generated from the records (run \`${REGENERATE}\`)`, () => {
  const current = readFileSync(INDEX_FILE, 'utf8');
  const expected = renderDecisionsIndex(decisions);
  if (current !== expected) {
    const lines = current.split('\n');
    const line = expected.split('\n').findIndex((text, i) => text !== lines[i]);
    throw new Error(`docs/decisions.md is stale from line ${line + 1}: run \`${REGENERATE}\``);
  }
});

test('every record has one number, and every decision a status relates exists', () => {
  expect(new Set(byNumber.keys()).size).toBe(decisions.length);
  const unknown = decisions.flatMap((decision) =>
    Object.entries(decision.status.related).flatMap(([relation, numbers]) =>
      numbers.filter((number) => !byNumber.has(number)).map((number) => `${decision.number}: ${relation} ${number}`),
    ),
  );
  expect(unknown).toEqual([]);
});

test('every supersede and amend link has its reverse in the other record’s status', () => {
  const oneWay = decisions.flatMap((decision) =>
    (Object.keys(REVERSE) as Relation[]).flatMap((relation) =>
      decision.status.related[relation]
        .filter((number) => byNumber.has(number) && !byNumber.get(number)!.status.related[REVERSE[relation]].includes(decision.number))
        .map(
          (number) =>
            `${decision.number} says "${WORDS[relation]} ${number}": ${number}'s status lacks "${WORDS[REVERSE[relation]]} ${decision.number}"`,
        ),
    ),
  );
  expect(oneWay).toEqual([]);
});

test('every path a record names exists, unless its status says it is not in the tree or the record is wholly superseded', () => {
  const tracked = execFileSync('git', ['ls-files'], { cwd: repositoryRoot, encoding: 'utf8' }).split('\n');
  const rootFolders = new Set(tracked.filter((file) => file.includes('/')).map((file) => file.slice(0, file.indexOf('/'))));
  const missing = decisions.flatMap((decision) =>
    missingPaths(decision, repositoryRoot, rootFolders).map((path) => `${decision.file}: ${path}`),
  );
  expect(missing).toEqual([]);
});

describe('the status parser', () => {
  test('numbers after a verb are related, up to the clause’s end; parentheses and clauses without a verb are not', () => {
    const status = parseStatus(
      "Status: accepted (issue 9, see 0005). Supersedes 0121's rule; 0121's splits stand. Amends [0083](0083-x.md) (the 0084 profile)\nand 0085, 0086/0087. Builds on 0006. Its octave rule is superseded by 0140, its profiles by 0143.",
    );
    expect(status.related).toEqual({
      supersedes: ['0121'],
      supersededBy: ['0140', '0143'],
      amends: ['0083', '0085', '0086', '0087'],
      amendedBy: [],
    });
    expect(status.state).toBe('partly superseded');
  });

  test('the state, a living page and the paths not in the tree', () => {
    expect(parseStatus('Status: superseded by [0125](0125-a.md) (the statements). Builds on 0009.').state).toBe('superseded');
    const status = parseStatus(
      'Status: accepted. Current state: [Analyser accuracy](../analyser-accuracy.md). Not in the tree: `scripts/a.ts`, `scripts/lib/b.ts`\n(removed here).',
    );
    expect(status).toMatchObject({
      state: 'accepted',
      currentState: { title: 'Analyser accuracy', href: '../analyser-accuracy.md' },
      notInTree: ['scripts/a.ts', 'scripts/lib/b.ts'],
    });
  });

  test('a record without a numbered title or a recognised state is refused, naming the file', () => {
    expect(() => readDecision('0999-x.md', '# 0998 X\n\nStatus: accepted.\n')).toThrow('0999-x.md');
    expect(() => readDecision('0999-x.md', '# 0999 X\n\nStatus: maybe.\n')).toThrow(/0999-x\.md: a status begins with accepted/);
  });
});
