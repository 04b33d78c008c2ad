/**
 * `npm run docs:decisions`: writes docs/decisions/README.md, the index of the decision log, from
 * each record's title and status paragraph. `--check` exits 1 when the file is stale instead of
 * writing it.
 */
import { join } from 'node:path';
import { REGENERATE, renderDecisionsIndex } from './decisions/index-doc.js';
import { DECISIONS_FOLDER, readDecisions } from './decisions/read-decisions.js';
import { writeGeneratedFile } from './lib/generated-file.js';

writeGeneratedFile(join(DECISIONS_FOLDER, 'README.md'), renderDecisionsIndex(readDecisions()), REGENERATE);
