import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * The two modes of a generated file's script (`npm run docs:events`, `docs:config`): writes
 * `content` to `target`, or, with `--check` among the arguments, exits 1 when the file differs.
 */
export function writeGeneratedFile(target: string, content: string, command: string): void {
  const name = relative(process.cwd(), target);
  if (!process.argv.includes('--check')) {
    writeFileSync(target, content);
    console.log(`wrote ${name}`);
    return;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== content) {
    console.error(`${name} is stale: run \`${command}\``);
    process.exit(1);
  }
}
