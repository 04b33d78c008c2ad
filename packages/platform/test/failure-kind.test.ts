import pg from 'pg';
import { AppError, describeFailure, failureKind, unexpectedErrorAnswer } from '@catalog/platform';
import { createTestDatabase, freePort, type TestDatabase } from '@catalog/testing';

/**
 * Decision 0053: a consumer parks a message only for failures the message causes. The errors here
 * are the real ones of Postgres and of the pg client.
 */
let testDb: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  testDb = await createTestDatabase('failurekind');
  client = new pg.Client({ connectionString: testDb.url });
  await client.connect();
  await client.query('create table t (id uuid primary key, short varchar(5) not null, data jsonb)');
});
afterAll(async () => {
  await client.end();
  await testDb.drop();
});

async function errorOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

test("values Postgres refuses are the message's fault: rejected", async () => {
  const refused = [
    await errorOf(() => client.query(`insert into t values ('not-a-uuid', 'x', null)`)), // 22P02
    await errorOf(() => client.query(`insert into t values (gen_random_uuid(), 'far too long', null)`)), // 22001
    await errorOf(() => client.query(`insert into t values (gen_random_uuid(), 'x', $1)`, ['{"a":"\\u0000"}'])), // 22P05
    await errorOf(() => client.query(`insert into t values (gen_random_uuid(), null, null)`)), // 23502
    await errorOf(() => client.query(`select 2147483648::int`)), // 22003
  ];
  expect(refused.map((e) => (e as { code: string }).code)).toEqual(['22P02', '22001', '22P05', '23502', '22003']);
  for (const error of refused) expect(failureKind(error)).toBe('rejected');
  expect(failureKind(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe('rejected');
  expect(failureKind(new AppError(404, 'not_found', 'entity not found'))).toBe('rejected');
  // The same call gets the same answer again (decision 0114): not worth retrying without end.
  expect(failureKind(new AppError(500, 'reply_too_large', 'the answer is larger than the service can send'))).toBe('rejected');
  expect(failureKind(new AppError(413, 'payload_too_large', 'the request is larger than the service can take'))).toBe('rejected');
});

test('Postgres away, shutting down or misconfigured, and services that do not answer: transient', async () => {
  const port = await freePort();
  const refused = await errorOf(async () => {
    const c = new pg.Client({ connectionString: `postgres://nobody@127.0.0.1:${port}/none` });
    await c.connect();
  });
  const victim = new pg.Client({ connectionString: testDb.url });
  victim.on('error', () => undefined);
  await victim.connect();
  const { rows } = await victim.query<{ pid: number }>('select pg_backend_pid() as pid');
  await client.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
  const terminated = await errorOf(() => victim.query('select 1'));
  const afterwards = await errorOf(() => victim.query('select 1'));
  const missingTable = await errorOf(() => client.query('select * from nowhere'));
  for (const error of [refused, terminated, afterwards, missingTable])
    expect([describeFailure(error), failureKind(error)]).toEqual([describeFailure(error), 'transient']);
  expect(failureKind(new AppError(503, 'service_unavailable', 'the asset service is not available'))).toBe('transient');
  expect(failureKind(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))).toBe('transient');
  // A request meeting Postgres away is answered 503 (try again); a missing table is our fault: 500.
  for (const error of [refused, terminated, afterwards])
    expect([describeFailure(error), unexpectedErrorAnswer(error).code]).toEqual([describeFailure(error), 'service_unavailable']);
  expect(unexpectedErrorAnswer(missingTable).status).toBe(500);
  expect(unexpectedErrorAnswer(new TypeError('x is undefined')).code).toBe('internal_error');
});

test('describeFailure: one bounded line with the SQLSTATE', () => {
  const error = Object.assign(new Error('value too long\nfor type character varying(5)'), { code: '22001' });
  expect(describeFailure(error)).toBe('22001: value too long for type character varying(5)');
  expect(describeFailure(new Error('x'.repeat(1000)))).toHaveLength(300);
});
