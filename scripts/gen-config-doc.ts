/**
 * `npm run docs:config`: writes docs/configuration.md from the services' configuration schemas.
 * `--check` exits 1 when the file is stale instead of writing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigurationDoc } from './config-doc.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'configuration.md');
const wanted = renderConfigurationDoc();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== wanted) {
    console.error('docs/configuration.md is stale: run `npm run docs:config`');
    process.exit(1);
  }
} else {
  writeFileSync(target, wanted);
  console.log(`wrote ${target}`);
}
