import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Next } from 'koa';
import { AppError, type HttpContext } from '@catalog/platform';

/** A file the gateway serves as it is: where it is read from and the type it is served as. */
export interface StaticFile {
  /** The request path, e.g. `/app/main.js`. */
  path: string;
  /** Absolute path of the file on disk. */
  file: string;
  type: string;
  /** Text of the file replaced as it is read (a vendor bundle's reference to another origin). */
  replace?: { text: string; by: string };
}

/** The pages' own files (HTML, scripts, styles): the gateway package's `static/` folder (src and dist alike). */
export const STATIC_ROOT = fileURLToPath(new URL('../../static/', import.meta.url));

/** Headers every page and asset gets besides its Content-Security-Policy (decision 0139). */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  // Revalidated on every load (ETag): a new gateway's pages are seen at once.
  'Cache-Control': 'no-cache',
};

interface Loaded {
  type: string;
  body: Buffer;
  gzipped: Buffer | null;
  etag: string;
}

function load(file: StaticFile): Loaded {
  const read = readFileSync(file.file);
  const body = file.replace ? Buffer.from(read.toString('utf8').replaceAll(file.replace.text, file.replace.by)) : read;
  const compressible = /^(text\/|application\/(javascript|json))/.test(file.type) && body.length > 1024;
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { type: file.type, body, gzipped: compressible ? gzipSync(body, { level: 9 }) : null, etag };
}

/**
 * Koa middleware serving `files` (read once, at start) under `prefix` with `csp` as their
 * Content-Security-Policy: GET and HEAD, ETag revalidation, gzip when the client takes it; another
 * method is 405 with Allow, another path under the prefix 404. These are public files: no key is
 * read, every API call of the pages carries its own key (decision 0139) or, for `/app`, goes through its session (0153).
 */
export function staticSite(prefix: string, files: readonly StaticFile[], csp: string) {
  const table = new Map(files.map((file) => [file.path, load(file)]));
  const under = (path: string): boolean => path === prefix || path.startsWith(`${prefix}/`);
  return async (ctx: HttpContext, next: Next): Promise<void> => {
    if (!under(ctx.path)) return next();
    const found = table.get(ctx.path);
    if (!found) throw new AppError(404, 'route_not_found', `no page at ${ctx.path}`);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on this path`, { allowed: ['GET', 'HEAD'] });
    }
    ctx.set(COMMON_HEADERS);
    ctx.set('Content-Security-Policy', csp);
    ctx.set('ETag', found.etag);
    ctx.vary('Accept-Encoding');
    if (ctx.get('if-none-match') === found.etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = found.type;
    const gzip = found.gzipped !== null && ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
    if (gzip) ctx.set('Content-Encoding', 'gzip');
    ctx.body = gzip ? found.gzipped : found.body;
  };
}

/** A Content-Security-Policy header value from its directives. */
export function policy(directives: Readonly<Record<string, string>>): string {
  return Object.entries(directives)
    .map(([name, value]) => (value ? `${name} ${value}` : name))
    .join('; ');
}
