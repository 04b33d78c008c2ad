import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type ConsoleMessage, type Page } from 'puppeteer-core';

/**
 * Headless Chromium from Debian's package (`chromium`, installed by scripts/lib/infra.sh
 * ensure_chromium, which exports CHROMIUM_BIN), driven by puppeteer-core: no browser is ever
 * downloaded. Screenshots go to test/artifacts/web/ (gitignored), kept after the run.
 */
export const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts', 'web');

function chromiumBinary(): string {
  const candidates = [process.env.CHROMIUM_BIN, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  const found = candidates.find((path) => existsSync(path));
  if (!found)
    throw new Error('chromium not found: run the tests through `npm test` (scripts/lib/infra.sh ensure_chromium) or set CHROMIUM_BIN');
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumBinary(),
    headless: true,
    // Root in CI has no user namespaces for the sandbox; the pages are our own, on loopback.
    args: ['--no-sandbox', '--mute-audio', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'],
    protocolTimeout: 120_000,
  });
}

/** What a page did that a test looks at: its policy violations, console errors, and every URL it asked for. */
export interface PageWatch {
  consoleErrors: string[];
  requests: string[];
}

/** A page at `width`x900 whose CSP violations (reported into the page's console), errors and requests are recorded. */
export async function watchedPage(browser: Browser, width = 1280): Promise<{ page: Page; watch: PageWatch }> {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900 });
  const watch: PageWatch = { consoleErrors: [], requests: [] };
  page.on('request', (request) => {
    watch.requests.push(request.url());
  });
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') watch.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watch.consoleErrors.push(`uncaught: ${String(error)}`));
  await page.evaluateOnNewDocument(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`csp-violation ${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  return { page, watch };
}

/** Policy violations among the console errors. */
export function violationsOf(watch: PageWatch): string[] {
  return watch.consoleErrors.filter((text) => text.startsWith('csp-violation') || text.includes('Content Security Policy'));
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) as `${string}.png`, fullPage });
}

/** Opens the library page's upload form and fills it in: title, artist and the file (not sent yet). */
export async function fillUploadForm(page: Page, song: { title: string; artist: string; file: string }): Promise<void> {
  await page.click('nav a[href="#/upload"]');
  await page.waitForSelector('#upload-title');
  await page.type('#upload-title', song.title);
  await page.type('#upload-artist', song.artist);
  const chooser = await page.$('#upload-file');
  await (chooser as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(song.file);
}
