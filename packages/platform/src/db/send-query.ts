import type pg from 'pg';

/**
 * Runs a query through node-postgres's callback form, settled by a promise of our own (decision
 * 0177). Its promise form (`client.query(text)` without a callback) kept every result it returned
 * alive through the young generation's collections: all of it was promoted and only a full
 * collection freed it, so a service reading ~200 KB pages ran a full collection every few dozen
 * of them. Through the callback form the same results die young. Use it for every query whose
 * result can be large.
 */
export function sendQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  client: pg.ClientBase,
  config: pg.QueryConfig,
): Promise<pg.QueryResult<R>> {
  return new Promise((resolve, reject) => {
    client.query<R>(config, (error: Error | undefined, result: pg.QueryResult<R>) => (error ? reject(error) : resolve(result)));
  });
}
