/**
 * `npm run docs:events`: writes docs/events.md from the event registry in packages/contracts.
 * `--check` exits 1 when the file is stale instead of writing it.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderEventsDoc } from '../packages/contracts/src/events/doc.js';
import { writeGeneratedFile } from './lib/generated-file.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'events.md');
writeGeneratedFile(target, renderEventsDoc(), 'npm run docs:events');
