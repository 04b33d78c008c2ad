import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repositoryRoot } from './repository-root.js';

/** The README's layout table matches the tree: what it names exists, and it names everything. */
interface Row {
  paths: string[];
  mentions: string[];
}

const backticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

function layoutRows(): Row[] {
  const readme = readFileSync(join(repositoryRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Layout\n'), readme.indexOf('\n## ', readme.indexOf('## Layout\n') + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [, what = '', description = ''] = line.split(/\s*\|\s*/);
      return { paths: backticked(what), mentions: backticked(description) };
    });
}

const exists = (path: string): boolean => existsSync(join(repositoryRoot, path));

/** Whether a file matching `pattern` (one `*` in its last part) exists in its folder. */
function matches(pattern: string): boolean {
  if (!pattern.includes('*')) return exists(pattern);
  const [before, after] = pattern.split('*') as [string, string];
  const folder = dirname(join(repositoryRoot, before + 'x'));
  if (!existsSync(folder)) return false;
  const prefix = before.slice(before.lastIndexOf('/') + 1);
  return readdirSync(folder).some((name) => name.startsWith(prefix) && name.endsWith(after));
}

/** A backticked word that names a file or folder: has a slash (not a URL path or package) or a file ending. */
const looksLikePath = (word: string): boolean =>
  !word.startsWith('/') && !word.startsWith('@') && !word.includes(' ') && (word.includes('/') || /\.(ts|sh|md|conf|json)$/.test(word));

test('every path of the layout table exists', () => {
  const rows = layoutRows();
  expect(rows.length).toBeGreaterThan(10);
  const missing = rows.flatMap((row) => row.paths.filter((path) => !exists(path)));
  expect(missing).toEqual([]);
});

test('every path a row mentions exists, within the row or from the root', () => {
  const missing: string[] = [];
  for (const row of layoutRows()) {
    const base = row.paths.length === 1 ? row.paths[0]!.replace(/\/$/, '') : '.';
    for (const word of row.mentions.filter(looksLikePath)) {
      const candidates = [join(base, word), join(base, 'src', word), word].map((c) => c.replace(/\/$/, ''));
      if (!candidates.some(matches)) missing.push(`${row.paths.join(', ')}: ${word}`);
    }
  }
  expect(missing).toEqual([]);
});

test('every file git tracks is under a row of the layout table', () => {
  const paths = layoutRows().flatMap((row) => row.paths);
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repositoryRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
  const outside = tracked.filter((file) => !paths.some((path) => file === path || file.startsWith(path.replace(/\/?$/, '/'))));
  expect(outside).toEqual([]);
});
