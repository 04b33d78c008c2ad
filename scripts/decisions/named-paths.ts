/**
 * The repository paths a decision record names, and which of them are missing (for
 * test/dev/decisions.test.ts). Two kinds are checked:
 *
 * - link targets (`[text](target)`, not a URL), resolved from docs/decisions, in every record;
 * - backticked words that are repository paths: no spaces or placeholders (`<name>`, `{id}`, `…`),
 *   a slash, and a first part that is a folder at the repository's root (`services/…`, `scripts/…`);
 *   a path relative to something the text names (`domain/text.ts`) is not. These are checked in
 *   every record that is not wholly superseded, except the paths its status lists as not in the tree.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Decision } from './read-decisions.js';

export function missingPaths(decision: Decision, root: string, rootFolders: ReadonlySet<string>): string[] {
  const folder = join(root, 'docs', 'decisions');
  const links = [...decision.text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target))
    .filter((target) => !existsSync(join(folder, target)));
  if (decision.status.state === 'superseded') return links;
  const paths = [...decision.text.matchAll(/`([^`\n]+)`/g)]
    .map((match) => match[1]!.trim())
    .filter((word) => isRepositoryPath(word, rootFolders) && !decision.status.notInTree.includes(word))
    .filter((path) => !matches(root, path));
  return [...new Set([...links, ...paths])];
}

function isRepositoryPath(word: string, rootFolders: ReadonlySet<string>): boolean {
  if (/[\s<>{}…]/.test(word) || !word.includes('/')) return false;
  return rootFolders.has(word.slice(0, word.indexOf('/')));
}

/** Whether a path exists; a part with `*` matches any name with the same start and end. */
function matches(root: string, path: string): boolean {
  let candidates = [root];
  for (const part of path.replace(/\/$/, '').split('/')) {
    candidates = candidates.flatMap((base) => {
      if (!part.includes('*')) return existsSync(join(base, part)) ? [join(base, part)] : [];
      if (!statSync(base).isDirectory()) return [];
      const [before, after] = [part.slice(0, part.indexOf('*')), part.slice(part.lastIndexOf('*') + 1)];
      return readdirSync(base)
        .filter((name) => name.startsWith(before) && name.endsWith(after))
        .map((name) => join(base, name));
    });
  }
  return candidates.length > 0;
}
