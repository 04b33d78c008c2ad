import { createDatabase, readConfig, subjectsFor, type NatsConnection } from '@catalog/platform';
import {
  capturingLogger,
  createTestDatabase,
  eventually,
  serviceEnvironment,
  testCallContext,
  testBus,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';
import { rebuildWhenNeeded } from '../src/domain/rebuild.js';
import { analysisReader } from '../src/integration/analysis-client.js';
import { catalogReader } from '../src/integration/catalog-client.js';
import { libraryConfig, startLibraryService } from '../src/index.js';
import type { LibraryDb } from '../src/persistence/tables.js';

/**
 * The library starting before the catalog (every first `npm start`): its rebuild waits for the
 * catalog with an INFO line and no stack; only a catalog that stays away past the grace period is
 * a WARN, still without a stack (the reason, no responders, is known).
 */
let database: TestDatabase;
let nc: NatsConnection;
beforeAll(async () => {
  database = await createTestDatabase('librarywait');
  nc = await testBus('library-wait-test');
});
afterAll(async () => {
  await nc.close();
  await database.drop();
});

type Line = Record<string, any>;
const rebuildLines = (lines: Line[]): Line[] => lines.filter((line) => /catalog|rebuild/.test(String(line.msg)));
const withStack = (lines: Line[]): Line[] => lines.filter((line) => JSON.stringify(line).includes('"stack"'));

test('a library started before the catalog says it waits for it: INFO, no WARN, no stack', async () => {
  const config = readConfig(libraryConfig, {
    ...(await serviceEnvironment(database, ['library'])),
    // A prefix no catalog serves: the library's calls find no responders.
    NATS_PREFIX: uniqueNatsPrefix('librarywait'),
    LIBRARY_HTTP_PORT: '0',
  });
  const { logger, lines } = capturingLogger('library');
  const runtime = await startLibraryService(config, { logger });
  try {
    const waiting = await eventually(async () =>
      lines().find((line) => line.msg === 'waiting for the catalog to start before rebuilding the library'),
    );
    expect(waiting).toMatchObject({ level: 30, catalog: 'the catalog service is not available' });
    // Further attempts (0.5 s, 1 s, 2 s later) add no line of their own.
    await eventually(async () =>
      lines().filter((line) => line.msg === 'rebuilding the library from the catalog').length >= 3 ? true : undefined,
    );
    expect(lines().filter((line) => line.level >= 40)).toEqual([]);
    expect(withStack(lines())).toEqual([]);
    expect(lines().filter((line) => line.msg === waiting.msg)).toHaveLength(1);
  } finally {
    await runtime.stop();
  }
});

test('a catalog still away after the grace period is a WARN, still without a stack', async () => {
  // Migrated by the first test's service; the projection is still missing, so a rebuild is needed.
  const library = createDatabase<LibraryDb>({ url: database.urlAs('library_app'), schema: 'library' });
  const rpc = { nc, subjects: subjectsFor(uniqueNatsPrefix('librarywait')), callContext: testCallContext(), timeoutMs: 5_000 };
  const { logger, lines } = capturingLogger('library');
  const stop = rebuildWhenNeeded({
    db: library.db,
    catalog: catalogReader(rpc),
    analyses: analysisReader(rpc),
    logger,
    catalogStartGraceMs: 1_000,
    subscribed: async () => true,
  });
  try {
    const warned = await eventually(async () => lines().find((line) => line.level === 40), 20_000);
    expect(warned).toMatchObject({
      msg: 'the catalog has not come up; the library rebuild waits for it',
      catalog: 'the catalog service is not available',
      waitedSeconds: expect.any(Number),
    });
    expect(rebuildLines(lines())[0]).toMatchObject({ level: 30 });
    expect(withStack(lines())).toEqual([]);
  } finally {
    await stop();
    await library.close();
  }
});
