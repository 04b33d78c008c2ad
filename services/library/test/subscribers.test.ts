import { AppError, newId } from '@catalog/platform';
import { createTestDatabase, testLogger, type TestDatabase } from '@catalog/testing';
import pg from 'pg';
import { subscribers } from '../src/domain/subscribers.js';
import { startTestLibrary } from './fixtures.js';

/**
 * Which tenants the library projects (decision 0149): the gateway's answer, recorded; a tenant
 * found subscribed after it was recorded unsubscribed is caught up once; without an answer the
 * recorded state, or, for a tenant never looked at, projection as before.
 */
let database: TestDatabase;
let admin: pg.Client;
let library: Awaited<ReturnType<typeof startTestLibrary>>;

beforeAll(async () => {
  database = await createTestDatabase('librarysubscribers');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  library = await startTestLibrary(database);
});
afterAll(async () => {
  await library.stop();
  await admin.end();
  await database.drop();
});

/** A gateway that answers what `plan` says now (`'away'`: no answer), and what it was asked. */
function gatewayDouble() {
  const state = { plan: ['catalog'] as string[] | 'away', asked: 0, caughtUp: [] as string[] };
  const tenants = subscribers(
    {
      db: library.database.db,
      logger: testLogger(),
      gateway: {
        products: async () => {
          state.asked += 1;
          if (state.plan === 'away') throw new AppError(503, 'service_unavailable', 'the gateway service is not available');
          return state.plan as Array<'catalog' | 'library'>;
        },
      },
      catchUp: async (tenantId) => void state.caughtUp.push(tenantId),
    },
    0,
  );
  return { state, tenants };
}

const recorded = async (tenantId: string) =>
  (await admin.query('select active from library.subscriptions where tenant_id = $1', [tenantId])).rows.map((r) => r.active);

test('a tenant without the product is skipped and recorded; once subscribed it is caught up once, then followed', async () => {
  const { state, tenants } = gatewayDouble();
  const tenantId = newId();
  expect(await tenants.active(tenantId)).toBe(false);
  expect(await recorded(tenantId)).toEqual([false]);

  state.plan = ['catalog', 'library'];
  expect(await Promise.all([tenants.active(tenantId), tenants.active(tenantId), tenants.changed(tenantId)])).toEqual([
    true,
    true,
    undefined,
  ]);
  expect(state.caughtUp).toEqual([tenantId]);
  expect(await recorded(tenantId)).toEqual([true]);
  expect(await tenants.active(tenantId)).toBe(true);
  expect(state.caughtUp).toEqual([tenantId]);
});

test('without an answer of the gateway: the recorded state, or, for a tenant never looked at, projected as before and nothing recorded', async () => {
  const { state, tenants } = gatewayDouble();
  const known = newId();
  expect(await tenants.active(known)).toBe(false);
  state.plan = 'away';
  expect(await tenants.active(known)).toBe(false);

  const unknown = newId();
  expect(await tenants.active(unknown)).toBe(true);
  expect(await recorded(unknown)).toEqual([]);
  expect(state.caughtUp).toEqual([]);
});
