/**
 * `npm run sdk:generate`: writes packages/sdk/src/generated/ (the types of the OpenAPI document and
 * the operations that take an Idempotency-Key). `--check` exits 1 when a file is stale instead.
 */
import { mkdirSync } from 'node:fs';
import { GENERATE_COMMAND, GENERATED_DIR, generatedSources } from '../packages/sdk/scripts/generated-sources.js';
import { writeGeneratedFile } from './lib/generated-file.js';

mkdirSync(GENERATED_DIR, { recursive: true });
for (const { path, content } of await generatedSources()) writeGeneratedFile(path, content, GENERATE_COMMAND);
