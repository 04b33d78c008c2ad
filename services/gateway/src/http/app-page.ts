import { readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { policy, STATIC_ROOT, staticSite, type StaticFile } from './app-static.js';

/**
 * `/app`'s policy (decision 0139): its own modules and styles only, nothing inline; API calls to
 * this origin, uploads to it and to `uploadOrigins` (an S3 bucket's, decision 0145); audio from the
 * blob the page downloaded; no string ever becomes markup or script (Trusted Types with no policy:
 * the page builds its DOM from nodes and text).
 */
export function appCsp(uploadOrigins: readonly string[] = []): string {
  return policy({
    'default-src': "'none'",
    'script-src': "'self'",
    'style-src': "'self'",
    'img-src': "'self' data:",
    'media-src': "'self' blob:",
    'connect-src': ["'self'", ...uploadOrigins].join(' '),
    'base-uri': "'none'",
    'form-action': "'none'",
    'frame-ancestors': "'none'",
    'require-trusted-types-for': "'script'",
    'trusted-types': "'none'",
  });
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Every file of `static/app` the page serves (its modules, styles, the page), read at start. */
function appFiles(): StaticFile[] {
  const dir = join(STATIC_ROOT, 'app');
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && TYPES[extname(entry.name)] !== undefined)
    .map((entry) => ({ path: `/app/${entry.name}`, file: join(dir, entry.name), type: TYPES[extname(entry.name)]! }));
  const index = join(dir, 'index.html');
  return [...files, { path: '/app', file: index, type: TYPES['.html']! }, { path: '/app/', file: index, type: TYPES['.html']! }];
}

/** `/app`: the library page (static ES modules, no build step; decision 0139), uploading to `uploadOrigins` too. */
export function appPage(uploadOrigins: readonly string[] = []) {
  return staticSite('/app', appFiles(), appCsp(uploadOrigins));
}
