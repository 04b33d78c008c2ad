import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of the package a module belongs to: `version` of the nearest package.json above
 * `moduleUrl` (pass `import.meta.url`). The same call works from `src/` and from `dist/`, and in
 * the container image, which keeps each service's package.json. Services announce it with their
 * NATS endpoints; a package.json without a version is a packaging mistake and stops the start.
 */
export function packageVersion(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const manifest = readManifest(join(dir, 'package.json'));
    if (manifest !== undefined) {
      const { version } = manifest;
      if (typeof version !== 'string' || version === '') throw new Error(`${join(dir, 'package.json')} has no version`);
      return version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}

function readManifest(path: string): { version?: unknown } | undefined {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) ?? {}) as { version?: unknown };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
