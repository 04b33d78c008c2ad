import { readFileSync } from 'node:fs';

const FALLBACK_VERSION = '0.1.0';

/**
 * The version of this package, announced with the NATS service endpoints. The package.json sits
 * one level above both `src/` and `dist/`, so the same relative path works from either.
 */
export function packageVersion(): string {
  try {
    const parsed = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return typeof parsed.version === 'string' && parsed.version !== '' ? parsed.version : FALLBACK_VERSION;
  } catch {
    return FALLBACK_VERSION;
  }
}
