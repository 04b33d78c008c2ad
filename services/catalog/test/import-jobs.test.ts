import { AppError, envelopeFromRow, newId, readConfig, subjectsFor } from '@catalog/platform';
import type { Asset, AssetWithUpload, Entity, Job } from '@catalog/contracts';
import { eventually, publishEvent, serviceEnvironment, testLogger, untilConsumerSettled } from '@catalog/testing';
import { applyChunk } from '../src/imports/domain/import-chunk.js';
import { catalogConfig, startCatalogService, type CatalogServiceHandle, type ImportFiles } from '../src/index.js';
import { startHarness, uploadBytes, type CatalogHarness, type Caller, type EntityPage } from './support.js';

/**
 * Import jobs at the service (decision 0134): a CSV file's rows matched, created, updated and
 * reported; a rerun that changes nothing; and a job whose replica stops halfway resumed by another
 * from its checkpoint, without duplicates.
 */

let h: CatalogHarness;

beforeAll(async () => {
  h = await startHarness('catimport', { withAssets: true, env: { CATALOG_IMPORT_CHUNK_ROWS: '100', CATALOG_IMPORT_ACK_WAIT_MS: '2000' } });
});

afterAll(async () => {
  await h?.stop();
});

/** The environment of a catalog replica a test starts itself: the harness's database and bus, a 2 s ack wait, and `extra`. */
async function replicaEnvironment(extra: Record<string, string>): Promise<Record<string, string>> {
  return {
    ...(await serviceEnvironment(h.database, ['catalog'])),
    NATS_PREFIX: h.natsPrefix,
    CATALOG_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    CATALOG_IMPORT_ACK_WAIT_MS: '2000',
    ...extra,
  };
}

/** An ONLINE standalone file of the tenant with `content` as its bytes (a string as UTF-8). */
async function dataFile(caller: Caller, contentType: string, content: string | Buffer): Promise<string> {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const asset = await h.assets(caller).ok<AssetWithUpload>('createAsset', {
    body: { retention: 'standalone', upload: { filename: 'import', contentType, size: bytes.length } },
  });
  expect(await uploadBytes(h, asset.upload, bytes)).toBeLessThan(300);
  expect((await h.assets(caller).ok<Asset>('confirmAsset', { params: { id: asset.assetId } })).status).toBe('ONLINE');
  return asset.assetId as string;
}

async function finished(caller: Caller, jobId: string): Promise<Job> {
  return eventually(async () => {
    const job = await caller.ok<Job>('getJob', { params: { jobId } });
    return job.state === 'succeeded' || job.state === 'failed' ? job : undefined;
  }, 30_000);
}

async function importFile(caller: Caller, assetId: string): Promise<Job> {
  const job = await caller.ok<Job>('createJob', { body: { type: 'import', source: { assetId } } });
  expect(job).toMatchObject({ state: 'queued', progress: { processed: 0, total: 0 } });
  return finished(caller, job.jobId);
}

const CSV = [
  'type,title,artist,dmrn,externalId',
  'song,"Hello, World",Adele,DM-1,',
  'song,New Song,,,X-1',
  'song,Bad,,bad dmrn!,',
  'jingle,"Top of',
  'the hour",,,',
  'song,Again,,DM-1,',
  'song,Too,many,fields,here,x',
  'jingle,Top of the hour,,,',
].join('\r\n');

test('a CSV import updates the entity of a known DMRN, creates the others, reports bad rows; a rerun changes nothing', async () => {
  const a = h.tenant();
  const existing = await a.ok<Entity>('createEntity', { body: { type: 'song', title: 'Old', externalReferences: { dmrn: 'DM-1' } } });
  const assetId = await dataFile(a, 'text/csv', CSV);

  const first = await importFile(a, assetId);
  expect(first).toMatchObject({
    state: 'succeeded',
    progress: { processed: 7, total: 7 },
    counts: { created: 2, updated: 1, unchanged: 0, skipped: 4 },
    errorCount: 4,
    failure: null,
  });
  expect(first.errors.map((e) => [e.row, e.code])).toEqual([
    [3, 'invalid_row'],
    [4, 'invalid_row'],
    [5, 'duplicate_in_file'],
    [6, 'invalid_row'],
  ]);
  const entities = (await a.ok<{ entities: Entity[] }>('listEntities', { query: { limit: 10 } })).entities;
  expect(entities.map((e) => [e.type, e.title, e.artist, e.externalReferences.dmrn]).sort()).toEqual(
    [
      ['jingle', 'Top of the hour', null, null],
      ['song', 'Hello, World', 'Adele', 'DM-1'],
      ['song', 'New Song', null, null],
    ].sort(),
  );
  expect(entities.find((e) => e.externalReferences.dmrn === 'DM-1')!.id).toBe(existing.id);
  const events = await h.outbox({ tenantId: a.tenantId });
  const ofJob = events.filter((e) => e.batch_id === first.jobId).map((e) => e.type);
  expect(ofJob).toEqual(['job.created', 'entity.created', 'entity.created', 'entity.updated', 'job.succeeded']);

  const again = await importFile(a, assetId);
  expect(again).toMatchObject({ state: 'succeeded', counts: { created: 0, updated: 0, unchanged: 3, skipped: 4 } });
  expect((await a.ok<EntityPage>('listEntities', { query: { limit: 10 } })).entities).toEqual(entities);
  const rerunEvents = (await h.outbox({ tenantId: a.tenantId })).filter((e) => e.batch_id === again.jobId).map((e) => e.type);
  expect(rerunEvents).toEqual(['job.created', 'job.succeeded']);
});

test('a job.created delivered again after its job ended runs nothing and makes no second job.succeeded', async () => {
  const a = h.tenant();
  const assetId = await dataFile(a, 'application/x-ndjson', '{"type":"song","title":"Once"}\n');
  const job = await importFile(a, assetId);
  expect(job).toMatchObject({ state: 'succeeded', counts: { created: 1 } });
  const [created] = await h.outbox({ tenantId: a.tenantId, type: 'job.created', resourceId: job.jobId });
  // The same event again, as JetStream delivers it once more (a redelivery past the relay's de-duplication window).
  const subjects = subjectsFor(h.natsPrefix);
  const seq = await publishEvent(h.service.nc, subjects, { ...envelopeFromRow(created!), tenantId: a.tenantId });
  const { durable } = readConfig(catalogConfig, await replicaEnvironment({})).importJobs;
  await untilConsumerSettled(h.service.nc, subjects, durable, seq);

  const ofJob = (await h.outbox({ tenantId: a.tenantId })).filter((e) => e.batch_id === job.jobId).map((e) => e.type);
  expect(ofJob).toEqual(['job.created', 'entity.created', 'job.succeeded']);
  const after = await a.ok<Job>('getJob', { params: { jobId: job.jobId } });
  expect(after).toEqual(job);
  const attempts = await h.sql.query(`select attempts from catalog.jobs where id = $1`, [job.jobId]);
  expect(attempts.rows[0].attempts).toBe(1);
});

test('a file that is not an import file is refused; a CSV file without type and title fails its job', async () => {
  const a = h.tenant();
  const wrongHeader = await dataFile(a, 'text/csv', 'name,artist\nx,y\n');
  const failed = await importFile(a, wrongHeader);
  expect(failed).toMatchObject({ state: 'failed', failure: { code: 'invalid_csv_header' }, counts: { created: 0 } });
  const reply = await a.call('createJob', { body: { type: 'import', source: { assetId: failed.jobId } } });
  expect(reply.ok ? 200 : reply.error.status).toBe(404);
});

test('a CSV field whose quote never closes is one row error up to the next line break; the rows after it are imported', async () => {
  const a = h.tenant();
  const csv = ['type,title', 'song,Before', `song,"Never closed, ${'la '.repeat(100_000)}`, 'song,After', 'jingle,"Open at the end'].join(
    '\n',
  );
  const job = await importFile(a, await dataFile(a, 'text/csv', csv));
  expect(job).toMatchObject({ state: 'succeeded', progress: { processed: 4, total: 4 }, counts: { created: 2, skipped: 2 } });
  expect(job.errors).toEqual([
    { row: 2, code: 'row_too_long', message: 'the row has more than 16384 bytes: skipped up to the next line break' },
    { row: 4, code: 'invalid_row', message: 'a quoted field of the row is never closed' },
  ]);
  const titles = (await a.ok<EntityPage>('listEntities', { query: { limit: 10 } })).entities.map((e) => e.title);
  expect(titles.sort()).toEqual(['After', 'Before']);
});

test('a row that is not UTF-8 is a row error, never stored repaired; UTF-8 of any length is imported as it is', async () => {
  const a = h.tenant();
  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  const lines = (...parts: Buffer[]) => Buffer.concat(parts.flatMap((part) => [part, utf8('\n')]));
  const csv = lines(
    utf8('\uFEFFtype,title,artist'),
    latin1('song,Café,Zoé'),
    utf8('song,Café 🎵,Zoé'),
    Buffer.concat([utf8('song,Truncated '), Buffer.from([0xf0, 0x9f, 0x8e])]),
    utf8('song,"Quoted, ☕",'),
  );
  const fromCsv = await importFile(a, await dataFile(a, 'text/csv', csv));
  expect(fromCsv).toMatchObject({ state: 'succeeded', progress: { processed: 4 }, counts: { created: 2, skipped: 2 } });
  expect(fromCsv.errors).toEqual([
    { row: 1, code: 'invalid_utf8', message: 'the row is not valid UTF-8' },
    { row: 3, code: 'invalid_utf8', message: 'the row is not valid UTF-8' },
  ]);
  const ndjson = lines(
    latin1('{"type":"song","title":"Déjà vu"}'),
    utf8('{"type":"song","title":"Déjà vu"}'),
    Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate: not UTF-8
  );
  const fromJsonLines = await importFile(a, await dataFile(a, 'application/x-ndjson', ndjson));
  expect(fromJsonLines).toMatchObject({ state: 'succeeded', progress: { processed: 3 }, counts: { created: 1, skipped: 2 } });
  expect(fromJsonLines.errors.map((e) => [e.row, e.code])).toEqual([
    [1, 'invalid_utf8'],
    [3, 'invalid_utf8'],
  ]);
  const entities = (await a.ok<EntityPage>('listEntities', { query: { limit: 10 } })).entities;
  expect(entities.map((e) => [e.title, e.artist]).sort()).toEqual(
    [
      ['Café 🎵', 'Zoé'],
      ['Déjà vu', null],
      ['Quoted, ☕', null],
    ].sort(),
  );
});

test('a chunk of a runner that is no longer the job’s writes nothing', async () => {
  const a = h.tenant();
  const jobId = newId();
  await h.sql.query(
    `insert into catalog.jobs (id, tenant_id, type, asset_id, state, source_system, total, runner)
     values ($1, $2, 'import', $3, 'running', 'test', 1, $4)`,
    [jobId, a.tenantId, newId(), newId()],
  );
  const rows = [{ row: 1, value: { type: 'song', title: 'Late' }, naturalKey: 'late' }];
  const outcome = await applyChunk(
    h.service.database.db,
    { tenantId: a.tenantId, jobId, runner: newId(), total: 1 },
    { rows, errors: [], records: 1 },
  );
  expect(outcome).toBe('superseded');
  const written = await h.sql.query(`select count(*)::int as n from catalog.entities where tenant_id = $1`, [a.tenantId]);
  expect(written.rows[0].n).toBe(0);
  const job = await h.sql.query(`select processed from catalog.jobs where id = $1`, [jobId]);
  expect(job.rows[0].processed).toBe(0);
});

/** Import files whose read stops (and waits for the stop of its service) once `bytes` were read. */
function holdingAfter(bytes: number, reached: () => void): (files: ImportFiles) => ImportFiles {
  return (files) => ({
    async open(call, assetId, signal) {
      const opened = await files.open(call, assetId, signal);
      async function* held(): AsyncGenerator<Uint8Array> {
        let sent = 0;
        for await (const chunk of opened.bytes) {
          const piece = chunk.subarray(0, Math.max(0, bytes - sent));
          if (piece.length > 0) yield piece;
          sent += piece.length;
          if (sent >= bytes) {
            reached();
            await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
          }
        }
      }
      return { contentType: opened.contentType, bytes: held() };
    },
  });
}

test('a job whose replica stops halfway is resumed by another from its checkpoint, without duplicates', async () => {
  const a = h.tenant();
  const lines = Array.from({ length: 3_000 }, (_, i) =>
    JSON.stringify({ type: 'song', title: `Song ${i + 1}`, externalId: `old-${i + 1}` }),
  );
  const text = `${lines.join('\n')}\n`;
  const assetId = await dataFile(a, 'application/x-ndjson', text);
  const env = await replicaEnvironment({ CATALOG_IMPORT_CHUNK_ROWS: '100' });
  const config = readConfig(catalogConfig, env);
  // The harness's catalog gives way to one whose second read (after counting) stops halfway.
  await h.service.stop();
  let reads = 0;
  let halfway!: () => void;
  const reachedHalfway = new Promise<void>((resolve) => (halfway = resolve));
  const half = Buffer.byteLength(lines.slice(0, 1_550).join('\n'));
  const first: CatalogServiceHandle = await startCatalogService(config, {
    logger: testLogger('catalog'),
    wrapImportFiles: (files) => ({
      open: (call, id, signal) => (++reads === 1 ? files : holdingAfter(half, halfway)(files)).open(call, id, signal),
    }),
  });
  let second: CatalogServiceHandle | undefined;
  try {
    const job = await a.ok<Job>('createJob', { body: { type: 'import', source: { assetId } } });
    await reachedHalfway;
    const stopped = await eventually(async () => {
      const now = await a.ok<Job>('getJob', { params: { jobId: job.jobId } });
      return now.progress.processed === 1_500 ? now : undefined;
    }, 15_000);
    expect(stopped).toMatchObject({ state: 'running', progress: { total: 3_000 }, counts: { created: 1_500 } });
    await first.stop();

    second = await startCatalogService(config, { logger: testLogger('catalog') });
    const done = await finished(a, job.jobId);
    expect(done).toMatchObject({ state: 'succeeded', progress: { processed: 3_000, total: 3_000 }, counts: { created: 3_000 } });
    const { rows } = await h.sql.query(
      `select count(*)::int as entities, count(distinct title)::int as titles from catalog.entities where tenant_id = $1`,
      [a.tenantId],
    );
    expect(rows[0]).toEqual({ entities: 3_000, titles: 3_000 });
    const created = (await h.outbox({ tenantId: a.tenantId, type: 'entity.created' })).filter((e) => e.batch_id === job.jobId);
    expect(new Set(created.map((e) => e.resource_id)).size).toBe(3_000);
    expect(created).toHaveLength(3_000);
    const attempts = await h.sql.query(`select attempts from catalog.jobs where id = $1`, [job.jobId]);
    expect(attempts.rows[0].attempts).toBe(2);
  } finally {
    await second?.stop();
    await first.stop();
  }
}, 60_000);

/** Import files whose read stops once `bytes` were read, until `gate` opens; `ended` once the reader let go of it. */
function gatedAfter(bytes: number, reached: () => void, gate: Promise<void>, ended: () => void): (files: ImportFiles) => ImportFiles {
  return (files) => ({
    async open(call, assetId, signal) {
      const opened = await files.open(call, assetId, signal);
      async function* gated(): AsyncGenerator<Uint8Array> {
        let sent = 0;
        try {
          for await (const chunk of opened.bytes) {
            if (sent < bytes && sent + chunk.length >= bytes) {
              yield chunk.subarray(0, bytes - sent);
              reached();
              await gate;
              yield chunk.subarray(bytes - sent);
            } else yield chunk;
            sent += chunk.length;
          }
        } finally {
          ended();
        }
      }
      return { contentType: opened.contentType, bytes: gated() };
    },
  });
}

test('a replica that dies mid-job (no heartbeat, nothing handed back) loses its job to another, and its late chunk writes nothing', async () => {
  await h.service.stop(); // the catalog of this test takes the job, not the harness's
  const a = h.tenant();
  const lines = Array.from({ length: 3_000 }, (_, i) => JSON.stringify({ type: 'song', title: `Tune ${i + 1}` }));
  const assetId = await dataFile(a, 'application/x-ndjson', `${lines.join('\n')}\n`);
  const env = await replicaEnvironment({ CATALOG_IMPORT_CHUNK_ROWS: '100' });
  const config = readConfig(catalogConfig, env);
  let reads = 0;
  let halfway!: () => void;
  const reachedHalfway = new Promise<void>((resolve) => (halfway = resolve));
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let letGo!: () => void;
  const lateReadEnded = new Promise<void>((resolve) => (letGo = resolve));
  const half = Buffer.byteLength(lines.slice(0, 1_550).join('\n'));
  const dying: CatalogServiceHandle = await startCatalogService(config, {
    logger: testLogger('catalog'),
    wrapImportFiles: (files) => ({
      open: (call, id, signal) => (++reads === 1 ? files : gatedAfter(half, halfway, gate, letGo)(files)).open(call, id, signal),
    }),
  });
  let second: CatalogServiceHandle | undefined;
  try {
    const job = await a.ok<Job>('createJob', { body: { type: 'import', source: { assetId } } });
    await reachedHalfway;
    await eventually(async () =>
      (await a.ok<Job>('getJob', { params: { jobId: job.jobId } })).progress.processed === 1_500 ? true : undefined,
    );
    // The replica's bus is gone: no more working(), no nak; its message comes again after the ack wait.
    await dying.nc.close();
    second = await startCatalogService(config, { logger: testLogger('catalog') });
    const done = await finished(a, job.jobId);
    expect(done).toMatchObject({ state: 'succeeded', progress: { processed: 3_000 }, counts: { created: 3_000, skipped: 0 } });
    // The dead replica's read goes on: its next chunk finds the job taken over and writes nothing.
    open();
    await lateReadEnded;
    const { rows } = await h.sql.query(
      `select count(*)::int as n, count(distinct title)::int as titles from catalog.entities where tenant_id = $1`,
      [a.tenantId],
    );
    expect(rows[0]).toEqual({ n: 3_000, titles: 3_000 });
    const after = await a.ok<Job>('getJob', { params: { jobId: job.jobId } });
    expect(after).toMatchObject({ state: 'succeeded', progress: { processed: 3_000 }, counts: { created: 3_000 } });
  } finally {
    open();
    await second?.stop();
    await dying.stop().catch(() => undefined);
  }
}, 60_000);

test('a job whose file cannot be read for a passing reason is tried again, and failed once its attempts are spent', async () => {
  await h.service.stop(); // the catalog of this test takes the job, not the harness's
  const a = h.tenant();
  const assetId = await dataFile(a, 'application/x-ndjson', '{"type":"song","title":"Never read"}\n');
  const env = await replicaEnvironment({ CATALOG_IMPORT_MAX_ATTEMPTS: '3' });
  let opened = 0;
  const failing: CatalogServiceHandle = await startCatalogService(readConfig(catalogConfig, env), {
    logger: testLogger('catalog'),
    wrapImportFiles: () => ({
      async open() {
        opened += 1;
        throw new AppError(503, 'service_unavailable', 'the asset service is not available');
      },
    }),
  });
  try {
    const job = await a.ok<Job>('createJob', { body: { type: 'import', source: { assetId } } });
    const done = await finished(a, job.jobId);
    expect(done).toMatchObject({ state: 'failed', failure: { code: 'max_attempts_exceeded' }, counts: { created: 0 } });
    expect(opened).toBe(3);
    const events = (await h.outbox({ tenantId: a.tenantId })).filter((e) => e.batch_id === job.jobId).map((e) => e.type);
    expect(events).toEqual(['job.created', 'job.failed']);
  } finally {
    await failing.stop();
  }
}, 60_000);
