/**
 * `npm run sdk:generate`: writes packages/sdk/src/generated/ from the OpenAPI document of the
 * route table. `--check` exits 1 when a file is stale instead of writing it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { GENERATE_COMMAND, GENERATED_DIR, generatedSources } from './generated-sources.js';

const check = process.argv.includes('--check');
let stale = 0;
mkdirSync(GENERATED_DIR, { recursive: true });
for (const { path, content } of await generatedSources()) {
  const name = relative(process.cwd(), path);
  if (!check) {
    writeFileSync(path, content);
    console.log(`wrote ${name}`);
    continue;
  }
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== content) {
    console.error(`${name} is stale: run \`${GENERATE_COMMAND}\``);
    stale += 1;
  }
}
if (stale > 0) process.exit(1);
