import type { EnvReader } from '../config.js';

/**
 * How long every HTTP listener waits for a client (decision 0050). A client that sends its
 * request too slowly, or stops, is cut off; a large upload that keeps progressing is not.
 */
export interface HttpTimeouts {
  /** The whole header section of a request must arrive within this (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /**
   * A request that is not a streamed upload (headers and JSON body) must arrive whole within this:
   * Node's `requestTimeout` on listeners without streamed uploads, the JSON body read's deadline on
   * those with them (gateway, asset), where uploads are held to `bodyMinBytesPerSecond` instead.
   */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this; above a load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** A connection that carries no byte either way for this long during a request is closed. */
  idleTimeoutMs: number;
  /** The window over which a request body must progress (see `bodyMinBytesPerSecond`). */
  bodyReadTimeoutMs: number;
  /**
   * Least average rate of a body being read, over each `bodyReadTimeoutMs` window (and at least one
   * byte per window); slower, the request is answered 408 and the connection closed. Windows in
   * which the server itself held the body back (back-pressure) do not count.
   */
  bodyMinBytesPerSecond: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 65_000,
  idleTimeoutMs: 60_000,
  bodyReadTimeoutMs: 30_000,
  bodyMinBytesPerSecond: 256,
};

/** The HTTP timeouts of a service from its environment (`HTTP_*_MS`), defaults above. */
export function readHttpTimeouts(env: EnvReader): HttpTimeouts {
  const d = DEFAULT_HTTP_TIMEOUTS;
  return {
    headersTimeoutMs: env.int('HTTP_HEADERS_TIMEOUT_MS', d.headersTimeoutMs, { min: 100 }),
    requestTimeoutMs: env.int('HTTP_REQUEST_TIMEOUT_MS', d.requestTimeoutMs, { min: 100 }),
    keepAliveTimeoutMs: env.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs, { min: 100 }),
    idleTimeoutMs: env.int('HTTP_IDLE_TIMEOUT_MS', d.idleTimeoutMs, { min: 100 }),
    bodyReadTimeoutMs: env.int('HTTP_BODY_READ_TIMEOUT_MS', d.bodyReadTimeoutMs, { min: 100 }),
    bodyMinBytesPerSecond: env.int('HTTP_BODY_MIN_BYTES_PER_SECOND', d.bodyMinBytesPerSecond, { min: 0 }),
  };
}
