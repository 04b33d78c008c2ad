/**
 * The status paragraph of a decision (the paragraph that begins `Status:` under its title), read
 * into what the index shows and the tests check. The forms it reads:
 *
 * - a state first: `accepted`, `superseded by N` or `partly superseded by N`;
 * - relations, each a clause (clauses end at `;` or at the end of a sentence): `Supersedes N`,
 *   `Superseded by N` (also `partly superseded by`, `superseded in part by`), `Amends N`,
 *   `Amended by N`. The decision numbers after the verb are the related decisions, up to the next
 *   verb (`builds on`, `extends` and `split from` name decisions that are not superseded or
 *   amended); numbers in parentheses, in backticks or in a clause without a verb are explanation;
 * - `Current state: [page](../page.md)`: a living page holds the subject's current design, the
 *   decision is its history;
 * - `Not in the tree: \`path\`, …`: repository paths the decision names that are gone (or that an
 *   operator creates), so the test of named paths lets them be.
 */
export const RELATIONS = ['supersedes', 'supersededBy', 'amends', 'amendedBy'] as const;
export type Relation = (typeof RELATIONS)[number];

export type State = 'accepted' | 'partly superseded' | 'superseded';

export interface Status {
  /** `superseded` when the whole decision is; `partly superseded` when a part of it is. */
  state: State;
  related: Record<Relation, string[]>;
  currentState: { title: string; href: string } | null;
  notInTree: string[];
}

/** The verbs of a clause, longest first; `null` ends a relation without starting one. */
const VERBS: ReadonlyArray<[RegExp, Relation | null]> = [
  [/^(partly superseded by|superseded in part by|superseded by)/i, 'supersededBy'],
  [/^supersedes\b/i, 'supersedes'],
  [/^amended by/i, 'amendedBy'],
  [/^amends\b/i, 'amends'],
  [/^(builds on|extends|split from)\b/i, null],
];
const DECISION_NUMBER = /^0\d{3}\b/;
const LEADING_STATE = /^(accepted|partly superseded|superseded)\b/i;

export function parseStatus(paragraph: string): Status {
  const text = paragraph.replace(/^Status:\s*/, '').replace(/\s+/g, ' ');
  const leading = LEADING_STATE.exec(text);
  if (!leading) throw new Error(`a status begins with accepted, superseded by or partly superseded by: "${text.slice(0, 60)}…"`);
  const current = /Current state: \[([^\]]+)\]\(([^)\s]+)\)/.exec(text);
  const spans: string[] = [];
  const plain = text
    .replace(/\[([^\]]+)\]\([^)\s]+\)/g, '$1')
    .replace(/`([^`]*)`/g, (_, span: string) => `\u0000s${spans.push(span) - 1}\u0000`);
  const related: Record<Relation, string[]> = { supersedes: [], supersededBy: [], amends: [], amendedBy: [] };
  const notInTree: string[] = [];
  for (const clause of clauses(withoutParentheses(plain))) {
    if (/^not in the tree:/i.test(clause)) notInTree.push(...[...clause.matchAll(/\u0000s(\d+)\u0000/g)].map((m) => spans[Number(m[1])]!));
    else for (const [relation, number] of relationsOf(clause)) if (!related[relation].includes(number)) related[relation].push(number);
  }
  const whole = leading[1]!.toLowerCase() === 'superseded';
  const state: State = whole ? 'superseded' : related.supersededBy.length > 0 ? 'partly superseded' : 'accepted';
  return { state, related, currentState: current ? { title: current[1]!, href: current[2]! } : null, notInTree };
}

/** The text outside parentheses (nested ones too). */
function withoutParentheses(text: string): string {
  let depth = 0;
  let out = '';
  for (const char of text) {
    if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += char;
  }
  return out;
}

/** Clauses: split at `;` and at a full stop that ends a sentence (not one inside a name such as `a.b`). */
function clauses(text: string): string[] {
  return text
    .split(/;|\.(?=\s|$)/)
    .map((clause) => clause.trim())
    .filter(Boolean);
}

/** The [relation, decision number] pairs of one clause: each number belongs to the verb before it. */
function relationsOf(clause: string): Array<[Relation, string]> {
  const out: Array<[Relation, string]> = [];
  let relation: Relation | null = null;
  for (let i = 0; i < clause.length; i++) {
    if (i > 0 && /\w/.test(clause[i - 1]!)) continue;
    const rest = clause.slice(i);
    const verb = VERBS.find(([pattern]) => pattern.test(rest));
    if (verb) {
      relation = verb[1];
      continue;
    }
    const number = DECISION_NUMBER.exec(rest);
    if (number && relation) out.push([relation, number[0]]);
  }
  return out;
}
