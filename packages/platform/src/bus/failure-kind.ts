import { AppError } from '../support/errors.js';

/**
 * Why handling a message failed, as far as a consumer can tell (decision 0053):
 * - `rejected`: the message itself is the problem, and retrying it cannot help: Postgres refused
 *   its values (SQLSTATE class 22 data exception, e.g. a NUL, an out-of-range number or time; 23
 *   integrity constraint violation; 54 program limit exceeded, e.g. a value too large for an
 *   index), the handler's code failed on it (a `TypeError` on an unexpected shape), or the handler
 *   refused it with a 4xx `AppError`, or a call it made was answered 4xx or `reply_too_large` (the
 *   same call gets the same answer: decision 0114). After its attempts such a message is parked.
 * - `transient`: anything else. The network or Postgres is away (no SQLSTATE, a system error code
 *   such as ECONNREFUSED, a connection that ended, a timeout), Postgres is shutting down, out of
 *   resources, or in recovery (classes 08, 53, 57, 58, XX, 25006), a conflict between transactions
 *   (40, 55P03), a service that did not answer (503, 504); and problems of the deployment rather
 *   than of the message (42: a missing table or privilege). These are retried as long as nothing
 *   else gets through (parking them would empty the pipeline into the dead letters whenever
 *   Postgres restarts); one that keeps failing while other messages are applied is parked after
 *   its transient attempts (decision 0114).
 */
export type FailureKind = 'rejected' | 'transient';

/** SQLSTATE classes whose errors a message's values cause. */
const REJECTED_SQLSTATE_CLASSES = new Set(['22', '23', '54']);

/** Names of errors of the NATS client and of Node's fetch/timers that say "no answer", not "bad message". */
const TRANSIENT_ERROR_NAMES = new Set([
  'TimeoutError',
  'AbortError',
  'ClosedConnectionError',
  'NoRespondersError',
  'RequestError',
  'ConnectionError',
]);

const CONNECTION_TROUBLE = /connection|terminated|timeout|timed out|not queryable/i;

/** Codes of 5xx answers that the same call always gets again: the answer is larger than the bus carries. */
const DETERMINISTIC_ERROR_CODES: ReadonlySet<string> = new Set(['reply_too_large']);

export function failureKind(error: unknown): FailureKind {
  if (error instanceof AppError) {
    if (DETERMINISTIC_ERROR_CODES.has(error.code)) return 'rejected';
    return error.status >= 400 && error.status < 500 ? 'rejected' : 'transient';
  }
  if (typeof error !== 'object' || error === null) return 'rejected';
  // The handler's own code failed on the message's shape.
  if (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError) return 'rejected';
  const e = error as { code?: unknown; severity?: unknown; syscall?: unknown; errno?: unknown; name?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  // pg's DatabaseError: an answer of the server, with its SQLSTATE.
  if (typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return REJECTED_SQLSTATE_CLASSES.has(code.slice(0, 2)) ? 'rejected' : 'transient';
  }
  // Node's system errors (ECONNREFUSED, EPIPE, ... also as the code of an AggregateError).
  if (typeof e.syscall === 'string' || typeof e.errno === 'number' || /^E[A-Z0-9_]+$/.test(code)) return 'transient';
  if (typeof e.name === 'string' && TRANSIENT_ERROR_NAMES.has(e.name)) return 'transient';
  // pg's client-side failures carry no code ("Connection terminated unexpectedly", "timeout
  // exceeded when trying to connect").
  if (typeof e.message === 'string' && CONNECTION_TROUBLE.test(e.message)) return 'transient';
  return 'rejected';
}

/** SQLSTATE classes and codes that say Postgres cannot serve now: connection, resources, shutdown or recovery, a conflict to retry. */
const UNAVAILABLE_SQLSTATE = /^(08|53|57|40)|^55P03$|^25006$/;

/**
 * Whether an error a request met says that a dependency (Postgres, NATS) cannot serve now, rather
 * than that the request or the code is wrong: such a request is answered 503
 * `service_unavailable` (try again), not 500. A Postgres restart is the case in point.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || error instanceof AppError) return false;
  const e = error as { code?: unknown; severity?: unknown; syscall?: unknown; errno?: unknown; name?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_SQLSTATE.test(code);
  if (typeof e.syscall === 'string' || typeof e.errno === 'number' || /^E[A-Z0-9_]+$/.test(code)) return true;
  if (typeof e.name === 'string' && TRANSIENT_ERROR_NAMES.has(e.name)) return true;
  return typeof e.message === 'string' && CONNECTION_TROUBLE.test(e.message);
}

/**
 * The answer to an error no code turned into an AppError: 503 `service_unavailable` when a
 * dependency is away (isDependencyUnavailable), else 500 `internal_error` (a fault of ours, logged).
 */
export function unexpectedErrorAnswer(error: unknown): AppError {
  return isDependencyUnavailable(error)
    ? new AppError(503, 'service_unavailable', 'a service this request needs is not available now; try again')
    : new AppError(500, 'internal_error', 'internal error');
}

/** A one-line account of a failure for a log line or a dead letter's header (no stack, bounded). */
export function describeFailure(error: unknown, maxLength = 300): string {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown; name?: unknown };
  const message = typeof e.message === 'string' ? e.message : String(error);
  const code = typeof e.code === 'string' ? `${e.code}: ` : '';
  const text = `${code}${message}`.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  return text.length > maxLength ? `${text.slice(0, maxLength - 3)}...` : text;
}
