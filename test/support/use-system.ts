import pg from 'pg';
import { apiClient } from './api.js';
import { startSystem, type RunningSystem, type SystemOptions } from './system.js';

/** A test file's running system (`useSystem`): read its fields inside tests and hooks. */
export interface SystemUnderTest {
  readonly system: RunningSystem;
  readonly api: ReturnType<typeof apiClient>;
  /** A client of the system's database as its owner (`database: true`). */
  readonly db: pg.Client;
}

export interface UseSystemOptions extends SystemOptions {
  /** Environment variables of the services, over the test defaults. */
  env?: Record<string, string>;
  /** Also connect `db` once the system runs (closed before it stops). */
  database?: boolean;
}

/**
 * Starts the whole system before the file's tests (`beforeAll`) and stops it after them, with an
 * API client of its gateway: the setup every contract test repeated.
 */
export function useSystem(options: UseSystemOptions = {}): SystemUnderTest {
  const { env = {}, database = false, ...systemOptions } = options;
  let running: { system: RunningSystem; api: ReturnType<typeof apiClient>; db: pg.Client | null } | null = null;
  beforeAll(async () => {
    const system = await startSystem(env, systemOptions);
    running = { system, api: apiClient(system.baseUrl), db: null };
    if (database) {
      running.db = new pg.Client({ connectionString: system.database.url });
      await running.db.connect();
    }
  });
  afterAll(async () => {
    await running?.db?.end();
    await running?.system.stop();
  });
  const started = () => {
    if (!running) throw new Error('the system is not running: read it inside a test or a hook');
    return running;
  };
  return {
    get system() {
      return started().system;
    },
    get api() {
      return started().api;
    },
    get db() {
      const { db } = started();
      if (!db) throw new Error('useSystem({ database: true }) connects db');
      return db;
    },
  };
}
