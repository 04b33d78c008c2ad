import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { generatedSources, GENERATE_COMMAND } from '../scripts/generated-sources.js';

/**
 * The SDK's types are generated from the OpenAPI document of the route table, never written by
 * hand: regenerated in memory, they must equal the committed files (else run `npm run sdk:generate`).
 */
test('src/generated/ is what the OpenAPI document generates today', async () => {
  const stale: string[] = [];
  for (const { path, content } of await generatedSources()) {
    let current = '';
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== content) stale.push(relative(process.cwd(), path));
  }
  expect({ stale, fix: GENERATE_COMMAND }).toEqual({ stale: [], fix: GENERATE_COMMAND });
}, 60_000);
