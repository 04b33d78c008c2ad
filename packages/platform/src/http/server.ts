import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './timeouts.js';

export interface RunningServer {
  server: Server;
  /** The address the listener is bound to, as `server.address()` gives it (`127.0.0.1`, `0.0.0.0`, `::`). */
  address: string;
  port: number;
  /** Where a client on this machine reaches it (loopback when bound to every interface). */
  url: string;
  /** Stops accepting connections, lets in-flight requests finish (up to `timeoutMs`), then closes. */
  close(timeoutMs?: number): Promise<void>;
}

export interface ListenOptions {
  timeouts?: HttpTimeouts;
  /**
   * The listener takes streamed uploads (gateway, asset): no limit on the time to receive a whole
   * request, whose bodies are held to a least rate instead (the app's `bodyReads`).
   */
  streamedBodies?: boolean;
}

/**
 * Node's timeouts of a listener (decision 0050): headers within `headersTimeoutMs`, the whole
 * request within `requestTimeoutMs` (unless it takes streamed uploads), keep-alive connections
 * closed after `keepAliveTimeoutMs`, any connection closed after `idleTimeoutMs` without a byte.
 */
function applyTimeouts(server: Server, timeouts: HttpTimeouts, streamedBodies: boolean): void {
  server.requestTimeout = streamedBodies ? 0 : timeouts.requestTimeoutMs;
  // Node refuses a headers timeout above the request timeout.
  server.headersTimeout =
    server.requestTimeout > 0 ? Math.min(timeouts.headersTimeoutMs, server.requestTimeout) : timeouts.headersTimeoutMs;
  server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  // Without a 'timeout' listener, Node destroys a socket that stayed idle this long.
  server.setTimeout(timeouts.idleTimeoutMs);
}

export async function listen(app: Koa<any>, port: number, host = '127.0.0.1', options: ListenOptions = {}): Promise<RunningServer> {
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  // Node checks the headers and request timeouts on this interval (30 s by default): often enough
  // that a connection is cut off close to its limit.
  const checkingInterval = Math.max(50, Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs) / 4);
  const server = createServer({ connectionsCheckingInterval: checkingInterval }, app.callback());
  applyTimeouts(server, timeouts, options.streamedBodies ?? false);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const reachable = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return {
    server,
    address: address.address,
    port: address.port,
    url: `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${address.port}`,
    close: (timeoutMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
        timer.unref();
        // Keep-alive connections become idle as their last response goes out: close them then.
        const idle = setInterval(() => server.closeIdleConnections(), 50);
        server.close(() => {
          clearTimeout(timer);
          clearInterval(idle);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
