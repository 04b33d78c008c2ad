import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface RunningServer {
  server: Server;
  port: number;
  url: string;
  /** Stops accepting connections, lets in-flight requests finish (up to `timeoutMs`), then closes. */
  close(timeoutMs?: number): Promise<void>;
}

export async function listen(app: Koa<any>, port: number, host = '0.0.0.0'): Promise<RunningServer> {
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // uploads and downloads stream for as long as they need
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    server,
    port: address.port,
    url: `http://${shownHost}:${address.port}`,
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
