import { writeFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, sineWav } from '@catalog/testing';
import type { AnalysisJobPage, VersionList } from '@catalog/contracts';
import type { Browser, Page, SerializedAXNode } from 'puppeteer-core';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';
import { fillUploadForm, launchBrowser, screenshot, violationsOf, watchedPage, type PageWatch } from './browser.js';
import { analysedInLibrary, libraryTenant, songWithAudio } from './library-fixture.js';

/**
 * The library page `/app` (decision 0139) in headless Chromium against the running
 * system: sign in with a key, search, open a track and see its waveform with cue points, play it
 * through the download, upload a new song with progress; labels, landmarks and a sensible tab
 * order; no policy violation. The key is exchanged once for the page's session (decision 0153):
 * no script of the page can read it or the session's token, and neither is ever in a URL.
 */
const sut = useSystem({ env: { ANALYSIS_CONCURRENCY: '2', ...PATIENT_CALLS } });
let browser: Browser;
let page: Page;
let watch: PageWatch;
let key: string;
let blueMonday: string;
const work = mkdtempSync(join(tmpdir(), 'catalog-web-'));

beforeAll(async () => {
  ({ key } = await libraryTenant(sut.api));
  const wav = await sineWav(4, { sampleRate: 22_050 });
  blueMonday = await songWithAudio(sut.api, key, { title: 'Blue Monday', artist: 'New Order' }, wav);
  await songWithAudio(sut.api, key, { title: 'Atmosphere', artist: 'Joy Division' }, wav);
  await analysedInLibrary(sut.api, key, blueMonday);
  await eventually(async () => {
    const page = await sut.api.request('GET', '/api/v1/library/tracks', { key });
    return page.body.tracks?.length === 2 ? true : undefined;
  }, 30_000);
  browser = await launchBrowser();
  ({ page, watch } = await watchedPage(browser));
}, 180_000);
afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The focused element as role-ish text: tag, id or name, and its text. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el ? `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} ${(el.textContent ?? '').trim().slice(0, 30)}`.trim() : 'none';
  });

test('the page and its modules are public files under a policy of their own origin only, with Trusted Types', async () => {
  const page = await fetch(`${sut.system.baseUrl}/app`);
  expect(page.status).toBe(200);
  const csp = page.headers.get('content-security-policy')!;
  for (const directive of [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "media-src 'self' blob:",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ])
    expect(csp.split('; ')).toContain(directive);
  const module = await fetch(`${sut.system.baseUrl}/app/main.js`);
  expect({
    status: module.status,
    type: module.headers.get('content-type'),
    nosniff: module.headers.get('x-content-type-options'),
  }).toEqual({
    status: 200,
    type: 'text/javascript; charset=utf-8',
    nosniff: 'nosniff',
  });
  expect((await fetch(`${sut.system.baseUrl}/app/tsconfig.json`)).status).toBe(404);
});

test('sign-in: a refused key says so; the right key opens a session whose cookie no script can read, and nothing readable holds the key', async () => {
  await page.goto(`${sut.system.baseUrl}/app`, { waitUntil: 'networkidle0' });
  expect(await focused(page)).toBe('input#api-key');
  await page.keyboard.type('sk_not_a_key');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('sign-in-message')?.textContent?.includes('Sign-in failed'));
  await page.type('#api-key', key);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#results tbody tr');
  // The browser holds the session as an HttpOnly, SameSite=Strict cookie of the page's paths only.
  const cookies = await page.cookies();
  expect(cookies.map((c) => ({ name: c.name, path: c.path, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([
    { name: 'catalog_app', path: '/app', httpOnly: true, sameSite: 'Strict' },
  ]);
  const token = cookies[0]!.value;
  // What any script of the page can read: every storage, the cookies, the fields' values.
  const readable = await page.evaluate(() => ({
    session: Object.entries(sessionStorage),
    local: Object.entries(localStorage),
    cookie: document.cookie,
    fields: Array.from(document.querySelectorAll('input'), (input) => input.value),
  }));
  expect({ session: readable.session, local: readable.local, cookie: readable.cookie }).toEqual({ session: [], local: [], cookie: '' });
  expect(JSON.stringify(readable)).not.toContain(key);
  expect(JSON.stringify(readable)).not.toContain(token);
  // A fresh load is still signed in: the page asks the gateway, it has nothing of its own to read.
  await page.reload({ waitUntil: 'networkidle0' });
  await page.waitForSelector('#results tbody tr');
});

test('search: words of the title find the track, a filter narrows the list', async () => {
  await page.type('#q', 'blue mon');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 1);
  const titles = await page.$$eval('#results tbody th', (cells) => cells.map((cell) => cell.textContent));
  expect(titles).toEqual(['Blue Monday']);
  await page.$eval('#q', (input) => ((input as HTMLInputElement).value = ''));
  await page.select('#sort', 'title');
  await page.click('form[role=search] button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 2);
  expect(await page.$$eval('#results tbody th', (cells) => cells.map((cell) => cell.textContent))).toEqual(['Atmosphere', 'Blue Monday']);
  await page.type('#bpmMin', '500');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('result-summary')?.textContent === 'No track matches.');
  await screenshot(page, 'app-search');
});

test('a track opened from the list shows its waveform drawn from the analysis, with the cue points on it', async () => {
  await page.$eval('#bpmMin', (input) => ((input as HTMLInputElement).value = ''));
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 2);
  await page.click('#results a[href$="' + blueMonday + '"]');
  await page.waitForSelector('#waveform[data-drawn="true"]', { timeout: 30_000 });
  expect(await focused(page)).toBe('h2 Blue Monday');
  const inked = await page.$eval('#waveform', (canvas) => {
    const c = canvas as HTMLCanvasElement;
    const pixels = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let count = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) count++;
    return { count, total: c.width * c.height };
  });
  // A steady tone fills a band around the middle: part of the canvas is drawn, not all of it.
  expect(inked.count).toBeGreaterThan(inked.total * 0.05);
  expect(inked.count).toBeLessThan(inked.total);
  const cues = await page.$$eval('#cue-points button', (buttons) => buttons.map((b) => b.textContent));
  expect(cues.length).toBeGreaterThan(0);
  expect(cues.some((text) => text?.startsWith('Cue in'))).toBe(true);
  expect(await page.$eval('#waveform', (c) => c.getAttribute('aria-label'))).toMatch(/^Waveform of Blue Monday; cue points: Cue in/);
  await screenshot(page, 'app-track');
});

test('play: the file comes through the download with the session, and the audio element plays it', async () => {
  await page.focus('#play');
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    () => {
      const audio = document.getElementById('player') as HTMLAudioElement;
      return !audio.paused && audio.currentTime > 0;
    },
    { timeout: 30_000 },
  );
  expect(watch.requests.some((url) => url.endsWith(`/download`))).toBe(true);
  await screenshot(page, 'app-playing');
});

test('upload: a new song goes up to the signed URL with a progress bar, is confirmed, and opens as a track', async () => {
  const file = join(work, 'new-song.wav');
  await writeFile(file, await sineWav(30, { sampleRate: 44_100, channels: 2 }));
  await fillUploadForm(page, { title: 'Ceremony', artist: 'New Order', file });
  // Every value the progress bar shows, in order.
  await page.evaluate(() => {
    const bar = document.getElementById('upload-progress') as HTMLProgressElement;
    const seen: number[] = [];
    (window as unknown as { progressSeen: number[] }).progressSeen = seen;
    new MutationObserver(() => seen.push(bar.value)).observe(bar, { attributes: true, attributeFilter: ['value'] });
  });
  // Uploads at 2 MB/s (Chromium's network emulation), so the 5 MB take a while and progress shows.
  await page.emulateNetworkConditions({ upload: 2_000_000, download: 100_000_000, latency: 0 });
  await page.click('form[aria-label="Upload a song"] button[type=submit]');
  await page.waitForSelector('#uploaded-track', { timeout: 60_000 });
  await page.emulateNetworkConditions(null);
  const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
  expect(seen.at(-1)).toBe(100);
  expect(seen).toEqual([...seen].sort((a, b) => a - b));
  expect(seen.some((value) => value > 0 && value < 100)).toBe(true);
  await screenshot(page, 'app-uploaded');

  const href = await page.$eval('#uploaded-track', (a) => a.getAttribute('href')!);
  const entityId = href.split('/').pop()!;
  const versions = await sut.api.request<VersionList>('GET', `/api/v1/catalog/entities/${entityId}/versions`, { key });
  expect(versions.body.versions.map((v) => [v.label, v.asset.status])).toEqual([['Original', 'ONLINE']]);
  const jobs = await sut.api.request<AnalysisJobPage>('GET', `/api/v1/catalog/analyses?entityId=${entityId}`, { key });
  expect(jobs.body.analyses.map((job) => job.type).sort()).toEqual(['cue_points', 'waveform']);

  await page.click('#uploaded-track');
  await page.waitForSelector('#waveform[data-drawn="true"]', { timeout: 90_000 });
  expect(await page.$eval('h2', (h) => h.textContent)).toBe('Ceremony');
}, 150_000);

test('keyboard and screen reader basics: landmarks, every control named, a sensible tab order', async () => {
  // A fresh load (the hash alone changing would be a navigation within the page).
  await page.goto(`${sut.system.baseUrl}/app#/`);
  await page.reload({ waitUntil: 'networkidle0' });
  await page.waitForSelector('#results tbody tr');
  const tree = await page.accessibility.snapshot({ interestingOnly: false });
  const nodes: Array<{ role: string; name?: string }> = [];
  const walk = (node: SerializedAXNode) => {
    nodes.push({ role: node.role, name: node.name });
    for (const child of node.children ?? []) walk(child);
  };
  walk(tree!);
  const roles = new Set(nodes.map((n) => n.role));
  for (const landmark of ['banner', 'navigation', 'main', 'contentinfo', 'search'])
    expect({ landmark, present: roles.has(landmark) }).toEqual({ landmark, present: true });
  const controls = nodes.filter((n) => ['textbox', 'searchbox', 'spinbutton', 'combobox', 'checkbox', 'button', 'link'].includes(n.role));
  expect(controls.filter((n) => !n.name?.trim())).toEqual([]);
  expect(controls.map((n) => n.name)).toEqual(
    expect.arrayContaining(['Title or artist', 'BPM from', 'BPM to', 'Key', 'Sort by', 'Search']),
  );

  // From the top of a freshly loaded page: the navigation, sign-out, then the search form in reading order.
  const order: string[] = [];
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press('Tab');
    order.push(await focused(page));
  }
  expect(order).toEqual([
    'a Library',
    'a Upload',
    'button#sign-out Sign out',
    'input#q',
    'input#bpmMin',
    'input#bpmMax',
    'input#key',
    expect.stringMatching(/^select#sort/),
    'button Search',
    'a Atmosphere',
  ]);

  // The same page on the upload form: each field labelled, the progress bar named.
  await page.goto(`${sut.system.baseUrl}/app#/upload`, { waitUntil: 'networkidle0' });
  const upload = await page.accessibility.snapshot({ interestingOnly: true });
  const names: string[] = [];
  const collect = (node: SerializedAXNode) => {
    if (['textbox', 'button', 'checkbox', 'progressbar'].includes(node.role)) names.push(`${node.role}: ${node.name}`);
    for (const child of node.children ?? []) collect(child);
  };
  collect(upload!);
  expect(names).toEqual(
    expect.arrayContaining([
      'textbox: Title',
      'textbox: Artist',
      'button: Audio file',
      'checkbox: Analyse the waveform and cue points (uses credits)',
      'button: Upload',
      'progressbar: Upload progress',
    ]),
  );
  await screenshot(page, 'app-upload-form');
});

test('the page kept to its policy, and the key never appeared in a URL', () => {
  expect(violationsOf(watch)).toEqual([]);
  // The only console errors are the browser's notes of the refused sign-in (401) and of the new
  // track asked for before the library had it (404, then asked again).
  expect(watch.consoleErrors.filter((text) => !/status of (401|404)/.test(text))).toEqual([]);
  expect(watch.requests.filter((url) => url.includes(key) || url.includes('sk_'))).toEqual([]);
});

test('sign-out ends the session: the browser drops the cookie and its token opens nothing any more', async () => {
  const token = (await page.cookies()).find((cookie) => cookie.name === 'catalog_app')!.value;
  await page.click('#sign-out');
  await page.waitForSelector('#api-key');
  expect(await page.cookies()).toEqual([]);
  const stale = await fetch(`${sut.system.baseUrl}/app/api/v1/library/tracks`, {
    headers: { 'x-catalog-app': '1', cookie: `catalog_app=${token}` },
  });
  expect(stale.status).toBe(401);
  await page.reload({ waitUntil: 'networkidle0' });
  expect(await page.$('#api-key')).not.toBeNull();
});
