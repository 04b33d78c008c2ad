import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { policy, STATIC_ROOT, staticSite, type StaticFile } from './app-static.js';

/** The Redoc build the page runs: the npm package's standalone bundle, served by the gateway (no CDN). */
const REDOC_BUNDLE = join(dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

/**
 * `/docs`'s policy (decision 0139): scripts of this origin only (the page, its init script and the
 * bundle); styles also inline, as Redoc's styled-components writes its rules into `<style>`
 * elements; its search index runs in a worker made from a blob; fetches only the document.
 */
export const DOCS_CSP = policy({
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self' 'unsafe-inline'",
  'img-src': "'self' data:",
  'font-src': "'self' data:",
  'connect-src': "'self'",
  'worker-src': "'self' blob:",
  'base-uri': "'none'",
  'form-action': "'none'",
  'frame-ancestors': "'none'",
});

const page = join(STATIC_ROOT, 'docs');
const DOCS_FILES: readonly StaticFile[] = [
  { path: '/docs', file: join(page, 'index.html'), type: 'text/html; charset=utf-8' },
  { path: '/docs/', file: join(page, 'index.html'), type: 'text/html; charset=utf-8' },
  { path: '/docs/docs.js', file: join(page, 'docs.js'), type: 'text/javascript; charset=utf-8' },
  { path: '/docs/docs.css', file: join(page, 'docs.css'), type: 'text/css; charset=utf-8' },
  // The bundle's footer shows Redocly's logo from their CDN: an empty data URL instead (the image
  // then fails and Redoc leaves it out), so the page asks no other origin for anything.
  {
    path: '/docs/redoc.standalone.js',
    file: REDOC_BUNDLE,
    type: 'text/javascript; charset=utf-8',
    replace: { text: 'https://cdn.redoc.ly/redoc/logo-mini.svg', by: 'data:,' },
  },
];

/** `/docs`: the API reference, Redoc rendering `/api/v1/openapi.json`. */
export function docsPage() {
  return staticSite('/docs', DOCS_FILES, DOCS_CSP);
}
