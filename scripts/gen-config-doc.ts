/**
 * `npm run docs:config`: writes docs/configuration.md from the services' configuration schemas.
 * `--check` exits 1 when the file is stale instead of writing it.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigurationDoc } from './config-doc.js';
import { writeGeneratedFile } from './lib/generated-file.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'configuration.md');
writeGeneratedFile(target, renderConfigurationDoc(), 'npm run docs:config');
