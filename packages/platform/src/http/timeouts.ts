import { Env } from '../support/env-schema.js';

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

/** The HTTP timeouts of a service from its environment (`HTTP_*`), defaults above. */
export const httpTimeoutsEnv = Env.group({
  headersTimeoutMs: Env.integer({
    env: 'HTTP_HEADERS_TIMEOUT_MS',
    default: DEFAULT_HTTP_TIMEOUTS.headersTimeoutMs,
    minimum: 100,
    description: 'The header section of a request must arrive within this (decision 0050).',
  }),
  requestTimeoutMs: Env.integer({
    env: 'HTTP_REQUEST_TIMEOUT_MS',
    default: DEFAULT_HTTP_TIMEOUTS.requestTimeoutMs,
    minimum: 100,
    description: 'A request that is not a streamed upload must arrive whole within this.',
  }),
  keepAliveTimeoutMs: Env.integer({
    env: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    default: DEFAULT_HTTP_TIMEOUTS.keepAliveTimeoutMs,
    minimum: 100,
    description: "An idle keep-alive connection is closed after this; keep it above a load balancer's idle timeout.",
  }),
  idleTimeoutMs: Env.integer({
    env: 'HTTP_IDLE_TIMEOUT_MS',
    default: DEFAULT_HTTP_TIMEOUTS.idleTimeoutMs,
    minimum: 100,
    description: 'A connection that carries no byte either way for this long during a request is closed.',
  }),
  bodyReadTimeoutMs: Env.integer({
    env: 'HTTP_BODY_READ_TIMEOUT_MS',
    default: DEFAULT_HTTP_TIMEOUTS.bodyReadTimeoutMs,
    minimum: 100,
    description: 'The window over which a request body must progress by `HTTP_BODY_MIN_BYTES_PER_SECOND`, else 408.',
  }),
  bodyMinBytesPerSecond: Env.integer({
    env: 'HTTP_BODY_MIN_BYTES_PER_SECOND',
    default: DEFAULT_HTTP_TIMEOUTS.bodyMinBytesPerSecond,
    minimum: 0,
    description: 'Least average rate of a request body over each `HTTP_BODY_READ_TIMEOUT_MS` window.',
  }),
});
