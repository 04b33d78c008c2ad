import net from 'node:net';

/**
 * A TCP proxy in front of a server (Postgres, say) that a test can cut: `cut()` ends every
 * connection through it and refuses new ones (connection refused, as when the server is down),
 * `restore()` lets connections through again. Only what goes through the proxy is affected, so a
 * test makes "Postgres is down" true for one component without touching a shared server.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = (): Promise<void> => new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  const dropAll = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    urlFor(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async cut() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
    async restore() {
      if (!server.listening) await listen(port);
    },
    async close() {
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
