import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import pg from 'pg';
import {
  consumeEventPages,
  consumeEvents,
  createCatalogClient,
  cursorKey,
  memoryCursorStore,
  postgresCursorStore,
  type CursorState,
  type CursorStore,
  type FeedEvent,
} from '@catalog/sdk';
import { createTestDatabase, eventually, type TestDatabase } from '@catalog/testing';
import { useSystem } from '../support/use-system.js';

/**
 * The SDK's feed consumer against the running system (rules 4-9 of part 6): pages in order, the
 * cursor saved only once a page is processed and kept on an empty page, one cursor per types
 * filter, repeats dropped by id, and a consumer process killed between pages that resumes without
 * losing or repeating a page.
 */
const sut = useSystem();
const CREATED = ['entity.created'];
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');

/** A store that records what is saved, over the memory one. */
function recordingStore(inner: CursorStore = memoryCursorStore()): CursorStore & { saves: CursorState[] } {
  const saves: CursorState[] = [];
  return {
    saves,
    load: (key) => inner.load(key),
    async save(key, state) {
      saves.push(state);
      await inner.save(key, state);
    },
  };
}

async function createEntities(key: string, titles: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const title of titles) {
    const created = await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title } });
    expect(created.status).toBe(201);
    ids.push(created.body.id);
  }
  return ids;
}

/** The ids of the `entity.created` events of `entityIds`, once all are in the feed, in feed order. */
async function createdEventIds(key: string, entityIds: string[]): Promise<string[]> {
  return eventually(async () => {
    const page = await sut.api.request('GET', '/api/v1/catalog/events?types=entity.created&limit=500', { key });
    const events = (page.body.events as FeedEvent[]).filter((e) => entityIds.includes(e.resourceId!));
    return events.length === entityIds.length ? events.map((e) => e.id) : undefined;
  }, 30_000);
}

/** Consumes until `count` events came, then stops through the signal (so the last page is committed). */
async function consumeCount(options: {
  key: string;
  store: CursorStore;
  types?: string[];
  count: number;
  name?: string;
  onEvent?: () => void;
}) {
  const stop = new AbortController();
  const seen: FeedEvent[] = [];
  const client = createCatalogClient({ baseUrl: sut.system.baseUrl, apiKey: options.key });
  for await (const event of consumeEvents({
    client,
    name: options.name ?? 'test',
    store: options.store,
    limit: 2,
    signal: stop.signal,
    ...(options.types ? { types: options.types } : {}),
  })) {
    options.onEvent?.();
    seen.push(event);
    if (seen.length === options.count) stop.abort();
  }
  return seen;
}

test('pages come in order; a cursor is saved only after its page is processed, and kept on an empty page', async () => {
  const { key } = await sut.api.tenant();
  const entities = await createEntities(key, ['One', 'Two', 'Three', 'Four', 'Five']);
  const expected = await createdEventIds(key, entities);
  const store = recordingStore();
  const savesWhenProcessed: number[] = [];
  const seen = await consumeCount({ key, store, types: CREATED, count: 5, onEvent: () => savesWhenProcessed.push(store.saves.length) });
  expect(seen.map((e) => e.id)).toEqual(expected);
  // Pages of two: while page n is processed, n - 1 cursors are saved; the last page is saved once processed.
  expect(savesWhenProcessed).toEqual([0, 0, 1, 1, 2]);
  expect(store.saves).toHaveLength(3);
  const committed = store.saves[2]!;
  expect(committed.recentIds).toEqual(expected);

  // Caught up: the next page is empty, its null cursor is not saved, the previous one stays.
  const client = createCatalogClient({ baseUrl: sut.system.baseUrl, apiKey: key });
  const again: FeedEvent[] = [];
  for await (const page of consumeEventPages({ client, name: 'test', types: CREATED, store, stopWhenCaughtUp: true }))
    again.push(...page.events);
  expect(again).toEqual([]);
  expect(store.saves).toHaveLength(3);
  expect(await store.load(cursorKey('test', CREATED))).toEqual(committed);

  // A new event is the only one the same consumer gets next: nothing lost, nothing repeated.
  const [sixth] = await createEntities(key, ['Six']);
  const [sixthEvent] = await createdEventIds(key, [sixth!]);
  expect((await consumeCount({ key, store, types: CREATED, count: 1 })).map((e) => e.id)).toEqual([sixthEvent]);
});

test('one cursor per types filter: another filter starts its own cursor; the order of the types does not matter', async () => {
  const { key } = await sut.api.tenant();
  const [entity] = await createEntities(key, ['Filtered']);
  expect((await sut.api.request('PATCH', `/api/v1/catalog/entities/${entity}`, { key, body: { title: 'Renamed' } })).status).toBe(200);
  await createdEventIds(key, [entity!]);
  const store = memoryCursorStore();
  expect((await consumeCount({ key, store, types: CREATED, count: 1 })).map((e) => e.type)).toEqual(['entity.created']);
  const both = await consumeCount({ key, store, types: ['entity.updated', 'entity.created'], count: 2 });
  expect(both.map((e) => e.type)).toEqual(['entity.created', 'entity.updated']);
  expect(await store.load(cursorKey('test', ['entity.created', 'entity.updated']))).toMatchObject({ recentIds: both.map((e) => e.id) });
  expect(await store.load(cursorKey('test', CREATED))).toMatchObject({ recentIds: [both[0]!.id] });
});

test('an event already processed (its id among the stored recent ones) is not handed out again', async () => {
  const { key } = await sut.api.tenant();
  const entities = await createEntities(key, ['A', 'B', 'C']);
  const ids = await createdEventIds(key, entities);
  const store = memoryCursorStore();
  // As after a delivery repeated from an older cursor: the first two were processed already.
  await store.save(cursorKey('test', CREATED), { cursor: null, recentIds: ids.slice(0, 2) });
  expect((await consumeCount({ key, store, types: CREATED, count: 1 })).map((e) => e.id)).toEqual([ids[2]]);
});

test('once caught up, each request is a long poll: an event written while it is held is the next one handed out', async () => {
  const { key } = await sut.api.tenant();
  const [first] = await createEntities(key, ['Before']);
  const [firstEvent] = await createdEventIds(key, [first!]);
  const asked: string[] = [];
  const client = createCatalogClient({
    baseUrl: sut.system.baseUrl,
    apiKey: key,
    fetch: async (request) => {
      asked.push(new URL(request.url).searchParams.get('wait') ?? '-');
      return fetch(request);
    },
  });
  const stop = new AbortController();
  const seen: string[] = [];
  for await (const event of consumeEvents({ client, name: 'held', types: CREATED, store: memoryCursorStore(), signal: stop.signal })) {
    seen.push(event.id);
    // Written once the consumer has the first event: it arrives through the held request.
    if (seen.length === 1) await createEntities(key, ['During']);
    if (seen.length === 2) stop.abort();
  }
  expect(seen[0]).toBe(firstEvent);
  expect(seen).toHaveLength(2);
  // The first request learns where the feed stands; the ones after it wait (20 s by default).
  expect(asked[0]).toBe('-');
  expect(asked.slice(1).every((wait) => wait === '20')).toBe(true);
}, 60_000);

test("a 429 of the feed's per-key limit is waited out for its Retry-After, then the same cursor asked again", async () => {
  const { key } = await sut.api.tenant();
  const entities = await createEntities(key, ['Limited']);
  const [eventId] = await createdEventIds(key, entities);
  // Spend the key's 60 feed requests a minute until the feed answers 429.
  await eventually(async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => sut.api.request('GET', '/api/v1/catalog/events?limit=1', { key })));
    return answers.some((a) => a.status === 429) ? true : undefined;
  }, 30_000);
  const attempts: Array<{ status: number; retryAfter: string | null; at: number }> = [];
  const client = createCatalogClient({
    baseUrl: sut.system.baseUrl,
    apiKey: key,
    fetch: async (request) => {
      const at = Date.now();
      const response = await fetch(request);
      attempts.push({ status: response.status, retryAfter: response.headers.get('retry-after'), at });
      return response;
    },
  });
  const stop = new AbortController();
  const seen: string[] = [];
  for await (const event of consumeEvents({ client, name: 'limited', types: CREATED, store: memoryCursorStore(), signal: stop.signal })) {
    seen.push(event.id);
    stop.abort();
  }
  expect(seen).toEqual([eventId]);
  const limited = attempts.findIndex((a) => a.status === 429);
  expect(limited).toBe(0);
  const waitedMs = attempts[limited + 1]!.at - attempts[limited]!.at;
  expect(waitedMs).toBeGreaterThanOrEqual(Number(attempts[limited]!.retryAfter) * 1000);
  expect(attempts.at(-1)!.status).toBe(200);
}, 180_000);

test('a 503 (the events service away) reaches the consumer as it came: each attempt is one request, paced, none retried inside the client', async () => {
  const { key } = await sut.api.tenant();
  const entities = await createEntities(key, ['Away']);
  const [eventId] = await createdEventIds(key, entities);
  // The gateway's answer while the events service is down, for the first three requests.
  const unavailable = () =>
    new Response(JSON.stringify({ error: { code: 'service_unavailable', message: 'the events service is not available' } }), {
      status: 503,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
    });
  const sent: number[] = [];
  const client = createCatalogClient({
    baseUrl: sut.system.baseUrl,
    apiKey: key,
    fetch: async (request) => {
      sent.push(Date.now());
      return sent.length <= 3 ? unavailable() : fetch(request);
    },
  });
  const retried: number[] = [];
  const stop = new AbortController();
  const seen: string[] = [];
  for await (const event of consumeEvents({
    client,
    name: 'away',
    types: CREATED,
    store: memoryCursorStore(),
    signal: stop.signal,
    onRetry: (_error, delayMs) => retried.push(delayMs),
  })) {
    seen.push(event.id);
    stop.abort();
  }
  expect(seen).toEqual([eventId]);
  // Every 503 was handed to the consumer (which notes it for the feed's limit), not sent again unseen.
  expect(retried).toHaveLength(3);
  expect(sent).toHaveLength(4);
  for (let i = 1; i < sent.length; i += 1) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(1_000);
}, 60_000);

describe('the Postgres cursor store', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    database = await createTestDatabase('sdkcursors');
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  test('keeps the cursor in a table; a new consumer over the same table resumes after it', async () => {
    const { key } = await sut.api.tenant();
    const entities = await createEntities(key, ['P1', 'P2', 'P3']);
    const ids = await createdEventIds(key, entities);
    const store = postgresCursorStore(pool);
    await store.ensureTable();
    await store.ensureTable();
    expect((await consumeCount({ key, store, types: CREATED, count: 2, name: 'pg' })).map((e) => e.id)).toEqual(ids.slice(0, 2));
    const { rows } = await pool.query('SELECT consumer_key, recent_ids FROM catalog_feed_cursors');
    expect(rows).toEqual([{ consumer_key: cursorKey('pg', CREATED), recent_ids: ids.slice(0, 2) }]);
    const other = new pg.Pool({ connectionString: database.url, max: 1 });
    try {
      const resumed = postgresCursorStore(other);
      expect((await consumeCount({ key, store: resumed, types: CREATED, count: 1, name: 'pg' })).map((e) => e.id)).toEqual([ids[2]]);
    } finally {
      await other.end();
    }
  });
});

describe('a consumer process killed between pages', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'sdk-crash-'));
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  /** Starts the fixture; resolves its stdout lines as they come. */
  function consumer(key: string, mode: string) {
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        join(here, 'fixtures', 'consume.ts'),
        sut.system.baseUrl,
        key,
        join(directory, 'store'),
        join(directory, 'out'),
        mode,
      ],
      { cwd: repo, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    return { child, next: async () => (await lines.next()).value as string | undefined };
  }

  async function killAt(key: string, mode: string, line: string): Promise<void> {
    const { child, next } = consumer(key, mode);
    for (let got = await next(); got !== line; got = await next()) {
      if (got === undefined) throw new Error(`the consumer ended before printing ${line}`);
    }
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    expect((await exited)[1]).toBe('SIGKILL');
  }

  async function runToEnd(key: string): Promise<void> {
    const { child } = consumer(key, 'run');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }

  const processed = async () => (await readFile(join(directory, 'out'), 'utf8')).split('\n').filter(Boolean);

  test('killed after a page was committed: the restarted consumer goes on with the next page, no page lost or repeated', async () => {
    const { key } = await sut.api.tenant();
    const ids = await createdEventIds(key, await createEntities(key, ['K1', 'K2', 'K3', 'K4', 'K5', 'K6']));
    await killAt(key, 'pause-after-commit', 'committed');
    expect(await processed()).toEqual(ids.slice(0, 2));
    await runToEnd(key);
    expect(await processed()).toEqual(ids);
  }, 90_000);

  test('killed after processing a page but before its cursor was saved: the page comes again (at least once), never lost', async () => {
    const { key } = await sut.api.tenant();
    const ids = await createdEventIds(key, await createEntities(key, ['L1', 'L2', 'L3', 'L4']));
    await killAt(key, 'pause-before-commit', 'processed');
    await runToEnd(key);
    expect(await processed()).toEqual([...ids.slice(0, 2), ...ids]);
  }, 90_000);
});
