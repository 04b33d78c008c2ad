import type { Browser } from 'puppeteer-core';
import { useSystem } from '../support/use-system.js';
import { launchBrowser, screenshot, violationsOf, watchedPage } from './browser.js';

/**
 * `/docs` (decision 0139): the gateway serves Redoc from its own node_modules and
 * the page renders the gateway's OpenAPI document under a strict Content-Security-Policy, asking
 * no other origin for anything.
 */
const sut = useSystem();
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

test('the OpenAPI document names its server (this deployment) and its license', async () => {
  const doc = (await sut.api.request('GET', '/api/v1/openapi.json')).body;
  expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  expect(doc.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
});

test('the page and the Redoc bundle come from the gateway with a strict policy, revalidated by ETag, gzipped', async () => {
  const page = await fetch(`${sut.system.baseUrl}/docs`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const csp = page.headers.get('content-security-policy')!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self';");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  expect(await page.text()).toContain('<script src="/docs/redoc.standalone.js"></script>');

  const bundle = await fetch(`${sut.system.baseUrl}/docs/redoc.standalone.js`, { headers: { 'accept-encoding': 'gzip' } });
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(bundle.headers.get('content-encoding')).toBe('gzip');
  expect((await bundle.text()).length).toBeGreaterThan(500_000);
  const again = await fetch(`${sut.system.baseUrl}/docs/redoc.standalone.js`, {
    headers: { 'if-none-match': bundle.headers.get('etag')! },
  });
  expect(again.status).toBe(304);
});

test('another method is 405 with Allow, another path under /docs 404, both as the error body', async () => {
  const post = await sut.api.request('POST', '/docs', { body: {} });
  expect({ status: post.status, code: post.body.error.code, allow: post.headers.get('allow') }).toEqual({
    status: 405,
    code: 'method_not_allowed',
    allow: 'GET, HEAD',
  });
  const other = await sut.api.request('GET', '/docs/index.html');
  expect({ status: other.status, code: other.body.error.code }).toEqual({ status: 404, code: 'route_not_found' });
});

test('in Chromium the reference renders every area of the API, with no policy violation and nothing from another origin', async () => {
  const { page, watch } = await watchedPage(browser);
  await page.goto(`${sut.system.baseUrl}/docs`, { waitUntil: 'networkidle0' });
  await page.waitForFunction(() => document.querySelector('h1')?.textContent?.includes('Catalog service API'), { timeout: 60_000 });
  const text = await page.evaluate(() => document.body.innerText);
  for (const words of ['Search and filter the tracks of the library', 'Queue an analysis', 'Proprietary']) expect(text).toContain(words);
  await screenshot(page, 'docs', false);
  const origin = new URL(sut.system.baseUrl).origin;
  expect(watch.requests.filter((url) => !url.startsWith(origin) && !url.startsWith('blob:') && !url.startsWith('data:'))).toEqual([]);
  expect(violationsOf(watch)).toEqual([]);
  await page.close();
});
