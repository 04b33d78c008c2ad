import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Job } from '@catalog/contracts';
import { sleep } from '@catalog/platform';
import { eventually, listeningPort, type ApiClient, type ApiResponse } from '@catalog/testing';
import { untilReady } from '../../scripts/dev/readiness.js';
import { serviceEnvironment, serviceProcess } from '../../scripts/dev/services.js';
import { apiClient } from '../support/api.js';
import { chartMemoryLimit, startCapped, type CappedProcess } from '../support/memory-cap.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * An import cannot take the catalog's memory (decision 0147). The catalog runs as a process of
 * its own with the memory limit of its chart (a cgroup of that limit, or Node's heap for it);
 * one tenant imports a 100 MB CSV whose quoted field never closes, while another tenant reads
 * its entities all along. The reads keep answering, the catalog keeps running within its limit,
 * and the job ends with the one row error, the rows around it imported.
 */

const FILE_BYTES = 100 * 2 ** 20;
const HEAD = 'type,title\nsong,Before the flood\nsong,"Never closed';
const TAIL = '\nsong,After the flood\n';

let system: RunningSystem | undefined;
let catalog: CappedProcess | undefined;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'catalog-import-memory-'));
  system = await startSystem();
  // The in-process catalog gives way to one as a process of its own, capped as in the chart.
  await system.stopCatalog();
  const shared = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    ...system.env,
    LOG_LEVEL: 'info', // its `http listening` line says the port it bound
    OTEL_SDK_DISABLED: 'true',
  };
  const spec = serviceProcess('catalog', 'catalog', serviceEnvironment('catalog', 0, { shared }));
  catalog = startCapped(spec, chartMemoryLimit('catalog'));
  const port = await listeningPort(catalog.child, 90_000);
  await untilReady(`http://127.0.0.1:${port}/readyz`, 90_000);
}, 150_000);

afterAll(async () => {
  await catalog?.stop();
  await system?.stop();
  rmSync(folder, { recursive: true, force: true });
}, 60_000);

/** A CSV of `bytes` on disk, written as it is made: a good row, a quoted field that runs over all of it, a good row after its first line break. */
async function unterminatedQuoteCsv(path: string, bytes: number): Promise<void> {
  const out = createWriteStream(path);
  const filler = Buffer.from('la, '.repeat(2 ** 18)); // 1 MiB: commas, no quote, no line break
  out.write(HEAD);
  for (let left = bytes - HEAD.length - TAIL.length; left > 0; left -= filler.length) {
    if (!out.write(left >= filler.length ? filler : filler.subarray(0, left))) await once(out, 'drain');
  }
  out.end(TAIL);
  await once(out, 'finish');
}

/** Uploads the file at `path` as the tenant's standalone CSV, streamed from disk; its asset id once ONLINE. */
async function uploadCsv(api: ApiClient, key: string, path: string): Promise<string> {
  const size = statSync(path).size;
  const asset = await api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'flood.csv', contentType: 'text/csv', size } },
  });
  expect(asset.status).toBe(201);
  const put = await fetch(asset.body.upload.url, {
    method: 'PUT',
    headers: { ...asset.body.upload.headers, 'content-length': String(size) },
    body: Readable.toWeb(createReadStream(path)) as RequestInit['body'],
    duplex: 'half',
  });
  expect(put.status).toBe(200);
  // A large file's confirmation may answer 503 confirmation_in_progress first: confirm again.
  await eventually(
    async () => {
      const confirmed = await api.request('POST', `/api/v1/catalog/assets/${asset.body.assetId}/confirm`, { key });
      return confirmed.status === 200 && confirmed.body.status === 'ONLINE' ? true : undefined;
    },
    120_000,
    500,
  );
  return asset.body.assetId as string;
}

/** Reads the tenant's entities again and again until `done`; each answer's status. */
async function keepReading(api: ApiClient, key: string, done: () => boolean): Promise<number[]> {
  const statuses: number[] = [];
  while (!done()) {
    const page: ApiResponse = await api.request('GET', '/api/v1/catalog/entities?limit=5', { key });
    statuses.push(page.status);
    await sleep(200);
  }
  return statuses;
}

test('a 100 MB CSV whose quote never closes is one row error, with the catalog inside its memory limit and another tenant served', async () => {
  const api = apiClient(system!.baseUrl);
  const capped = catalog!;
  const limit = chartMemoryLimit('catalog');
  const path = join(folder, 'flood.csv');
  await unterminatedQuoteCsv(path, FILE_BYTES);
  const importer = await api.tenant({ name: 'Station with a broken export' });
  const reader = await api.tenant({ name: 'Station next door' });
  const own = await api.request('POST', '/api/v1/catalog/entities', { key: reader.key, body: { type: 'song', title: 'Still here' } });
  expect(own.status).toBe(201);
  const assetId = await uploadCsv(api, importer.key, path);

  const created = await api.request<Job>('POST', '/api/v1/catalog/jobs', {
    key: importer.key,
    body: { type: 'import', source: { assetId } },
  });
  expect(created.status).toBe(202);
  let job: Job = created.body;
  const ended = () => job.state === 'succeeded' || job.state === 'failed' || capped.exit() !== null;
  const reads = keepReading(api, reader.key, ended);
  const deadline = Date.now() + 240_000;
  while (!ended() && Date.now() < deadline) {
    await sleep(500);
    const now = await api.request<Job>('GET', `/api/v1/catalog/jobs/${job.jobId}`, { key: importer.key });
    if (now.status === 200) job = now.body;
  }
  const statuses = await reads;

  expect({ exit: capped.exit(), oomKills: capped.oomKills(), output: capped.exit() ? capped.recentOutput() : '' }).toEqual({
    exit: null,
    oomKills: 0,
    output: '',
  });
  expect(capped.peakBytes()).toBeLessThanOrEqual(limit);
  expect(job).toMatchObject({
    state: 'succeeded',
    progress: { processed: 3, total: 3 },
    counts: { created: 2, skipped: 1 },
    errors: [{ row: 2, code: 'row_too_long', message: 'the row has more than 16384 bytes: skipped up to the next line break' }],
  });
  const titles = await api.request('GET', '/api/v1/catalog/entities?limit=5', { key: importer.key });
  expect(titles.body.entities.map((e: { title: string }) => e.title).sort()).toEqual(['After the flood', 'Before the flood']);
  // The other tenant was answered all along.
  expect(statuses.length).toBeGreaterThan(0);
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
  const after = await api.request('GET', '/api/v1/catalog/entities?limit=5', { key: reader.key });
  expect(after.body.entities.map((e: { title: string }) => e.title)).toEqual(['Still here']);
}, 420_000);
