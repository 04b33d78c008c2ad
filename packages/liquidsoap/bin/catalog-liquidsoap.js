#!/usr/bin/env node
// catalog-liquidsoap (docs/integrations.md). In the repository it runs the TypeScript sources
// through tsx, so it is never older than they are; installed from a package (no src/), the built dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/bin.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/bin.js', import.meta.url).href);
}
