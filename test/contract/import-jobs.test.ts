import type { FeedEvent, Job } from '@catalog/contracts';
import { eventually, type ApiResponse } from '@catalog/testing';
import { confirmUpload, expectError } from '../support/api.js';
import { useSystem } from '../support/use-system.js';

/**
 * Import jobs through the gateway (decision 0134): a 10,000-row JSON Lines file with bad
 * rows and DMRN duplicates (of existing entities and within the file) imported once, then again
 * with nothing changed; the job's events and its entities' events in the feed, in order, with the
 * job's id as their batchId.
 */

const sut = useSystem({ env: { CATALOG_IMPORT_CHUNK_ROWS: '1000' } });

/** An event of an import's feed; `data.processed` is read from job.progressed events only, which carry it. */
type ImportEvent = FeedEvent & { data: { processed: number } };
interface EventsPage {
  events: ImportEvent[];
  nextCursor: string | null;
  hasMore: boolean;
}

const ROWS = 10_000;
const EXISTING = 40;

/** The row a repeat repeats: the last row before `n - 2` with a new DMRN (a multiple of 3). */
const repeated = (n: number) => n - 3 - ((n - 3) % 3);

/**
 * Row n (1-based) of the file: every 50th is bad (no title, or a type the schema refuses); rows
 * 1-40 name the DMRN of an existing entity with a new title (updates); every 500th from 1,000
 * repeats the DMRN of a row a few before it (a duplicate within the file); the others are new,
 * with a DMRN, an externalId, or neither.
 */
function row(n: number): Record<string, unknown> {
  if (n % 500 === 0 && n >= 1_000) return { type: 'song', title: `Repeat of ${repeated(n)}`, dmrn: `NEW-${repeated(n)}` };
  if (n % 50 === 0) return n % 100 === 0 ? { type: 'song' } : { type: 'Not A Type', title: `Bad ${n}` };
  if (n <= EXISTING) return { type: 'song', title: `Renamed ${n}`, artist: 'Imported', dmrn: `OLD-${n}` };
  if (n % 3 === 0) return { type: 'song', title: `Song ${n}`, artist: `Artist ${n % 97}`, dmrn: `NEW-${n}` };
  if (n % 3 === 1) return { type: 'jingle', title: `Jingle ${n}`, externalId: `legacy-${n}` };
  return { type: 'song', title: `Plain ${n}` };
}

/** Bad rows (every 50th but the repeats) and repeats (every 500th from 1,000). */
const REPEATS = Array.from({ length: ROWS }, (_, i) => i + 1).filter((n) => n % 500 === 0 && n >= 1_000).length;
const BAD = Array.from({ length: ROWS }, (_, i) => i + 1).filter((n) => n % 50 === 0 && !(n % 500 === 0 && n >= 1_000)).length;
const CREATED = ROWS - EXISTING - REPEATS - BAD;

async function uploadFile(key: string, content: string | Buffer, contentType = 'application/x-ndjson'): Promise<string> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const asset = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'library.jsonl', contentType, size: bytes.length } },
  });
  expect(asset.status).toBe(201);
  expect((await fetch(asset.body.upload.url, { method: 'PUT', headers: asset.body.upload.headers, body: bytes })).status).toBe(200);
  expect((await confirmUpload(sut.api, key, asset.body.assetId)).body.status).toBe('ONLINE');
  return asset.body.assetId as string;
}

async function finished(key: string, jobId: string): Promise<Job> {
  return eventually(async () => {
    const job = await sut.api.request<Job>('GET', `/api/v1/catalog/jobs/${jobId}`, { key });
    expect(job.status).toBe(200);
    return job.body.state === 'succeeded' || job.body.state === 'failed' ? job.body : undefined;
  }, 120_000);
}

const FEED_TYPES = 'job.created,job.progressed,job.succeeded,job.failed,entity.created,entity.updated';

/** The events of the feed (these types) from `cursor` until `lastType` of job `jobId` was read. */
async function feedUntil(key: string, cursor: string | null, jobId: string): Promise<{ events: ImportEvent[]; cursor: string | null }> {
  const events: ImportEvent[] = [];
  let after = cursor;
  await eventually(async () => {
    for (;;) {
      const query = `types=${FEED_TYPES}&limit=500${after ? `&after=${after}` : ''}`;
      const page: ApiResponse<EventsPage> = await sut.api.request<EventsPage>('GET', `/api/v1/catalog/events?${query}`, { key });
      expect(page.status).toBe(200);
      events.push(...page.body.events);
      if (page.body.nextCursor) after = page.body.nextCursor;
      if (events.some((e) => e.batchId === jobId && (e.type === 'job.succeeded' || e.type === 'job.failed'))) return true;
      if (!page.body.hasMore) return undefined;
    }
  }, 60_000);
  return { events, cursor: after };
}

test('a 10,000-row import: DMRNs of existing entities update them, bad rows and duplicates are reported, a rerun changes nothing', async () => {
  const { key } = await sut.api.tenant({ name: 'Station moving in' });
  const existing = Array.from({ length: EXISTING }, (_, i) => ({
    type: 'song',
    title: `Old ${i + 1}`,
    externalReferences: { dmrn: `OLD-${i + 1}` },
  }));
  const batch = await sut.api.request('POST', '/api/v1/catalog/entities/batch', { key, body: { entities: existing } });
  expect(batch.status).toBe(201);
  // The feed from after the existing entities' events on.
  const start = await eventually(async () => {
    const page = await sut.api.request<EventsPage>('GET', `/api/v1/catalog/events?types=${FEED_TYPES}&limit=500`, { key });
    return page.body.events.length === EXISTING ? page : undefined;
  }, 30_000);
  const assetId = await uploadFile(key, `${Array.from({ length: ROWS }, (_, i) => JSON.stringify(row(i + 1))).join('\n')}\n`);

  const headers = { 'idempotency-key': `import-${assetId}` };
  const created = await sut.api.request('POST', '/api/v1/catalog/jobs', { key, headers, body: { type: 'import', source: { assetId } } });
  expect(created.status).toBe(202);
  expect(created.body).toMatchObject({ type: 'import', state: 'queued', source: { assetId }, errors: [], errorCount: 0 });
  const replayed = await sut.api.request('POST', '/api/v1/catalog/jobs', { key, headers, body: { type: 'import', source: { assetId } } });
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.body.jobId).toBe(created.body.jobId);

  const job = await finished(key, created.body.jobId);
  expect(job).toMatchObject({
    state: 'succeeded',
    progress: { processed: ROWS, total: ROWS },
    counts: { created: CREATED, updated: EXISTING, unchanged: 0, skipped: BAD + REPEATS },
    errorCount: BAD + REPEATS,
    failure: null,
  });
  expect(job.errors).toHaveLength(100);
  // The first 100 bad rows by row number are kept; errorCount counts them all.
  expect(job.errors.slice(0, 2)).toEqual([
    { row: 50, code: 'invalid_row', message: expect.stringContaining('/type') },
    { row: 100, code: 'invalid_row', message: '/title is required' },
  ]);
  expect(job.errors.find((e) => e.row === 1000)).toEqual({
    row: 1000,
    code: 'duplicate_in_file',
    message: `row ${repeated(1000)} of this file already wrote this entity`,
  });
  const renamed = await sut.api.request('GET', `/api/v1/catalog/entities/${batch.body.entities[0].id}`, { key });
  expect(renamed.body).toMatchObject({ title: 'Renamed 1', artist: 'Imported', externalReferences: { dmrn: 'OLD-1' } });

  // The feed: job.created, the entities' events, progress at most every 10 %, job.succeeded; all with the job's batchId.
  const first = await feedUntil(key, start.body.nextCursor, job.jobId);
  const ofJob = first.events.filter((e) => e.batchId === job.jobId);
  expect(first.events.filter((e) => e.batchId !== job.jobId)).toEqual([]);
  expect(ofJob[0]).toMatchObject({ type: 'job.created', resourceKind: 'job', resourceId: job.jobId, data: { jobId: job.jobId, assetId } });
  expect(ofJob[ofJob.length - 1]).toMatchObject({
    type: 'job.succeeded',
    data: { processed: ROWS, total: ROWS, created: CREATED, updated: EXISTING, unchanged: 0, skipped: BAD + REPEATS },
  });
  expect(ofJob.filter((e) => e.type === 'entity.created')).toHaveLength(CREATED);
  const updates = ofJob.filter((e) => e.type === 'entity.updated');
  expect(updates).toHaveLength(EXISTING);
  expect(updates[0]).toMatchObject({ dmrn: 'OLD-1', data: { changedFields: ['title', 'artist'] } });
  const progressed = ofJob.filter((e) => e.type === 'job.progressed').map((e) => e.data.processed);
  expect(progressed.length).toBeGreaterThan(0);
  expect(progressed.length).toBeLessThanOrEqual(10);
  expect(progressed).toEqual([...progressed].sort((a, b) => a - b));
  expect(new Set(ofJob.map((e) => e.id)).size).toBe(ofJob.length);

  // The same file again: every good row finds its entity as the first run left it.
  const again = await sut.api.request('POST', '/api/v1/catalog/jobs', { key, body: { type: 'import', source: { assetId } } });
  expect(again.status).toBe(202);
  const rerun = await finished(key, again.body.jobId);
  expect(rerun).toMatchObject({
    state: 'succeeded',
    counts: { created: 0, updated: 0, unchanged: CREATED + EXISTING, skipped: BAD + REPEATS },
  });
  const second = await feedUntil(key, first.cursor, rerun.jobId);
  expect(second.events.filter((e) => e.type.startsWith('entity.'))).toEqual([]);
  expect(second.events.filter((e) => e.batchId === rerun.jobId).map((e) => e.type)).toEqual([
    'job.created',
    ...second.events.filter((e) => e.type === 'job.progressed').map(() => 'job.progressed'),
    'job.succeeded',
  ]);

  const listed = await sut.api.request('GET', '/api/v1/catalog/jobs?limit=1', { key });
  expect(listed.body).toMatchObject({ jobs: [{ jobId: rerun.jobId }], hasMore: true });
  const next = await sut.api.request('GET', `/api/v1/catalog/jobs?limit=1&after=${listed.body.nextCursor}`, { key });
  expect(next.body).toMatchObject({ jobs: [{ jobId: job.jobId }], hasMore: false, nextCursor: null });
}, 240_000);

test('a job needs an ONLINE JSON Lines or CSV file of the tenant; such a file is no version’s file', async () => {
  const { key } = await sut.api.tenant({ name: 'Station with the wrong files' });
  const create = (assetId: string) =>
    sut.api.request('POST', '/api/v1/catalog/jobs', { key, body: { type: 'import', source: { assetId } } });
  expectError(await create('00000000-0000-7000-8000-000000000000'), 404, 'not_found');
  const pending = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'later.csv', contentType: 'text/csv' } },
  });
  expectError(await create(pending.body.assetId), 409, 'asset_not_online');
  const cover = await sut.api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'cover.png', contentType: 'image/png' } },
  });
  expectError(await create(cover.body.assetId), 415, 'unsupported_media_type');
  expectError(await sut.api.request('POST', '/api/v1/catalog/jobs', { key, body: { type: 'export', source: {} } }), 400, 'invalid_body');
  expectError(await sut.api.request('GET', '/api/v1/catalog/jobs/00000000-0000-7000-8000-000000000000', { key }), 404, 'not_found');

  const csv = await uploadFile(key, 'type,title\nsong,Kept standalone\n', 'text/csv');
  const entity = await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title: 'A song' } });
  const version = await sut.api.request('POST', `/api/v1/catalog/entities/${entity.body.id}/versions`, {
    key,
    body: { source: { assetId: csv }, label: 'Not audio', versionType: 'other' },
  });
  expectError(version, 415, 'unsupported_media_type');
});

test('rows that are not UTF-8, or longer than the row limit, are row errors with their row numbers; the rows after them are imported', async () => {
  const { key } = await sut.api.tenant({ name: 'Station with an old export' });
  const csv = Buffer.concat([
    Buffer.from('type,title,artist\nsong,Naïve,Zoé\n', 'utf8'),
    Buffer.from('song,Naïve,Zoé\n', 'latin1'),
    Buffer.from(`song,"Never closed${' la'.repeat(10_000)}\nsong,After,Zoé\n`, 'utf8'),
  ]);
  const fromCsv = await sut.api.request('POST', '/api/v1/catalog/jobs', {
    key,
    body: { type: 'import', source: { assetId: await uploadFile(key, csv, 'text/csv') } },
  });
  expect(fromCsv.status).toBe(202);
  const csvJob = await finished(key, fromCsv.body.jobId);
  expect(csvJob).toMatchObject({ state: 'succeeded', progress: { processed: 4, total: 4 }, counts: { created: 2, skipped: 2 } });
  expect(csvJob.errors).toEqual([
    { row: 2, code: 'invalid_utf8', message: 'the row is not valid UTF-8' },
    { row: 3, code: 'row_too_long', message: 'the row has more than 16384 bytes: skipped up to the next line break' },
  ]);
  const jsonLines = Buffer.concat([
    Buffer.from('{"type":"jingle","title":"Caf\u00e9 jingle"}\n', 'latin1'),
    Buffer.from('{"type":"jingle","title":"Café jingle"}\n', 'utf8'),
  ]);
  const fromJsonLines = await sut.api.request('POST', '/api/v1/catalog/jobs', {
    key,
    body: { type: 'import', source: { assetId: await uploadFile(key, jsonLines) } },
  });
  const jsonLinesJob = await finished(key, fromJsonLines.body.jobId);
  expect(jsonLinesJob).toMatchObject({ state: 'succeeded', counts: { created: 1, skipped: 1 } });
  expect(jsonLinesJob.errors).toEqual([{ row: 1, code: 'invalid_utf8', message: 'the row is not valid UTF-8' }]);
  // As the JSON API refuses the same bytes.
  const refused = await fetch(`${sut.system.baseUrl}/api/v1/catalog/entities`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: Buffer.from('{"type":"jingle","title":"Caf\u00e9 jingle"}', 'latin1'),
  });
  expect({ status: refused.status, code: ((await refused.json()) as { error: { code: string } }).error.code }).toEqual({
    status: 400,
    code: 'invalid_json',
  });
  const entities = await sut.api.request('GET', '/api/v1/catalog/entities?limit=10', { key });
  expect(entities.body.entities.map((e: { title: string; artist: string | null }) => [e.title, e.artist]).sort()).toEqual(
    [
      ['After', 'Zoé'],
      ['Café jingle', null],
      ['Naïve', 'Zoé'],
    ].sort(),
  );
}, 120_000);
