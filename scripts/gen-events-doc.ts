/**
 * `npm run docs:events`: writes docs/events.md from the event registry in packages/contracts.
 * `--check` exits 1 when the file is stale instead of writing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderEventsDoc } from '../packages/contracts/src/events/doc.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'events.md');
const wanted = renderEventsDoc();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== wanted) {
    console.error('docs/events.md is stale: run `npm run docs:events`');
    process.exit(1);
  }
} else {
  writeFileSync(target, wanted);
  console.log(`wrote ${target}`);
}
