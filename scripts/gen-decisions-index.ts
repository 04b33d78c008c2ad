/**
 * `npm run docs:decisions`: writes docs/decisions.md, the index of the decision log, from
 * each record's title and status paragraph. `--check` exits 1 when the file is stale instead of
 * writing it.
 */
import { INDEX_FILE, REGENERATE, renderDecisionsIndex } from './decisions/index-doc.js';
import { readDecisions } from './decisions/read-decisions.js';
import { writeGeneratedFile } from './lib/generated-file.js';

writeGeneratedFile(INDEX_FILE, renderDecisionsIndex(readDecisions()), REGENERATE);
