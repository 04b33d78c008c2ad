import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder, for the tests of the tree itself. */
export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
