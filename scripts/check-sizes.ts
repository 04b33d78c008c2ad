/**
 * The size limits of issue 16, run by `npm test` (scripts/test.sh) and `npm run check:sizes`: no
 * source file over 400 lines, no function over 60 lines of code outside tests and benchmarks
 * (scripts/lib/sizes.ts counts as eslint's max-lines-per-function with skipBlankLines and
 * skipComments). Prints each finding and exits 1 when there is one. Every
 * service is checked (the analysis and library services were exempt while issues 13 and 14 built them).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkTree, describeFinding } from './lib/sizes.js';

export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

function main(): void {
  const findings = checkTree(repositoryRoot);
  for (const finding of findings) console.error(describeFinding(finding));
  if (findings.length > 0) {
    console.error(`[sizes] ${findings.length} source file(s) or function(s) over the limits`);
    process.exit(1);
  }
  console.error('[sizes] no source file over 400 lines, no function over 60 lines outside tests and benchmarks');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
