import type { NatsConnection } from '@catalog/platform';
import { createTestDatabase, testBus, type TestDatabase } from '@catalog/testing';

/** A test file's database and bus connection (`useDatabaseAndBus`): read them inside tests and hooks. */
export interface DatabaseAndBus {
  readonly testDb: TestDatabase;
  readonly nc: NatsConnection;
}

/**
 * Creates a database of its own (`label`) and connects to NATS (`busName`) before the file's
 * tests; drains the connection and drops the database after them.
 */
export function useDatabaseAndBus(label: string, busName: string): DatabaseAndBus {
  let started: { testDb: TestDatabase; nc: NatsConnection } | null = null;
  beforeAll(async () => {
    started = { testDb: await createTestDatabase(label), nc: await testBus(busName) };
  });
  afterAll(async () => {
    await started?.nc.drain();
    await started?.testDb.drop();
  });
  const get = () => {
    if (!started) throw new Error('not started yet: read it inside a test or a hook');
    return started;
  };
  return {
    get testDb() {
      return get().testDb;
    },
    get nc() {
      return get().nc;
    },
  };
}
