import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageVersion } from '@catalog/platform';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'package-version-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const moduleIn = (...path: string[]): string => {
  mkdirSync(join(root, ...path.slice(0, -1)), { recursive: true });
  return pathToFileURL(join(root, ...path)).href;
};

test("a module's version is its package's: the nearest package.json above it, from src/ as from dist/", () => {
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'probe', version: '9.8.7' }));
  expect(packageVersion(moduleIn('src', 'service.ts'))).toBe('9.8.7');
  expect(packageVersion(moduleIn('dist', 'deep', 'service.js'))).toBe('9.8.7');
  const platform = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  expect(packageVersion(import.meta.url)).toBe(platform.version);
});

test('a package.json without a version stops the start instead of announcing a made-up one', () => {
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'probe', version: '9.8.7' }));
  mkdirSync(join(root, 'nested'));
  writeFileSync(join(root, 'nested', 'package.json'), JSON.stringify({ name: 'nested' }));
  expect(() => packageVersion(moduleIn('nested', 'src', 'main.js'))).toThrow(/nested\/package\.json has no version/);
});
