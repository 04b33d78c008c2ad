import { writeFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sineWav } from '@catalog/testing';
import type { VersionList } from '@catalog/contracts';
import type { Browser, Page } from 'puppeteer-core';
import { s3BlobStore } from '../support/s3.js';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';
import { fillUploadForm, launchBrowser, violationsOf, watchedPage, type PageWatch } from './browser.js';
import { libraryTenant } from './library-fixture.js';

/**
 * `/app` on the `s3` blob backend (decision 0145): the page uploads to the bucket's signed URL on
 * MinIO, another origin, which the gateway's policy names (APP_UPLOAD_ORIGINS) and MinIO's CORS
 * allows; the song goes up and comes out ONLINE with no policy violation, the page signed in
 * through its session (decision 0153).
 */
const s3 = s3BlobStore();
const bucketOrigin = new URL(s3.S3_ENDPOINT!).origin;
const sut = useSystem({ env: { ...s3, APP_UPLOAD_ORIGINS: bucketOrigin, ...PATIENT_CALLS } });
let browser: Browser;
let page: Page;
let watch: PageWatch;
let key: string;
const work = mkdtempSync(join(tmpdir(), 'catalog-web-s3-'));

beforeAll(async () => {
  ({ key } = await libraryTenant(sut.api));
  browser = await launchBrowser();
  ({ page, watch } = await watchedPage(browser));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

test("the page's policy lets it connect to the bucket's origin, and to nothing else besides its own", async () => {
  const response = await fetch(`${sut.system.baseUrl}/app`);
  const connect = response.headers
    .get('content-security-policy')!
    .split('; ')
    .find((directive) => directive.startsWith('connect-src'));
  expect(connect).toBe(`connect-src 'self' ${bucketOrigin}`);
});

test('a song uploaded from the page goes straight to the bucket and comes out ONLINE', async () => {
  const file = join(work, 'song.wav');
  await writeFile(file, await sineWav(6, { sampleRate: 44_100, channels: 2 }));
  await page.goto(`${sut.system.baseUrl}/app`, { waitUntil: 'networkidle0' });
  await page.type('#api-key', key);
  await page.keyboard.press('Enter');
  await page.waitForSelector('nav a[href="#/upload"]', { visible: true });
  await fillUploadForm(page, { title: 'Love Will Tear Us Apart', artist: 'Joy Division', file });
  await page.click('form[aria-label="Upload a song"] button[type=submit]');
  await page.waitForSelector('#uploaded-track', { timeout: 60_000 });

  const entityId = (await page.$eval('#uploaded-track', (a) => a.getAttribute('href')!)).split('/').pop()!;
  const versions = await sut.api.request<VersionList>('GET', `/api/v1/catalog/entities/${entityId}/versions`, { key });
  expect(versions.body.versions.map((v) => [v.label, v.asset.status])).toEqual([['Original', 'ONLINE']]);
  expect(watch.requests.some((url) => url.startsWith(`${bucketOrigin}/${s3.S3_BUCKET!}/`))).toBe(true);
  expect(violationsOf(watch)).toEqual([]);
  // Signed in through the page's session (decision 0153): the key is in no storage a script reads.
  expect((await page.cookies()).map((cookie) => [cookie.name, cookie.httpOnly])).toEqual([['catalog_app', true]]);
  expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
}, 120_000);
