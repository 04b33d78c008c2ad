import { connect, type Socket } from 'node:net';

/** What a request of the lean client answers. */
export interface LeanAnswer {
  status: number;
  text: string;
}

/** One pooled keep-alive connection and the request it is answering. */
interface Connection {
  socket: Socket;
  received: Buffer;
  pending: { resolve(answer: LeanAnswer): void; reject(error: Error): void } | null;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * A minimal HTTP/1.1 keep-alive client for a load generator that shares the machine's cores with
 * the system it measures (bench/library's lag): each request is one buffer written to a pooled
 * socket, each answer read only as far as its status line and Content-Length, so a request costs
 * the generator a fraction of what node:http's client does. One request at a time per socket, at
 * most `maxSockets` sockets (requests beyond wait for one); answers must carry Content-Length (the
 * gateway's JSON answers do) and not close the connection.
 */
export function leanHttpClient(base: string, maxSockets = 64) {
  const { hostname, port } = new URL(base);
  const host = `${hostname}:${port}`;
  const idle: Connection[] = [];
  const waiting: Array<(connection: Connection) => void> = [];
  let opened = 0;

  const release = (connection: Connection): void => {
    const next = waiting.shift();
    if (next) next(connection);
    else idle.push(connection);
  };

  const onData = (connection: Connection, chunk: Buffer): void => {
    connection.received = connection.received.length === 0 ? chunk : Buffer.concat([connection.received, chunk]);
    const headerEnd = connection.received.indexOf(HEADER_END);
    if (headerEnd === -1 || !connection.pending) return;
    const head = connection.received.subarray(0, headerEnd).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    const end = headerEnd + HEADER_END.length + length;
    if (connection.received.length < end) return;
    const answer = { status: Number(head.slice(9, 12)), text: connection.received.subarray(end - length, end).toString('utf8') };
    const { resolve } = connection.pending;
    connection.received = connection.received.subarray(end);
    connection.pending = null;
    release(connection);
    resolve(answer);
  };

  const open = (): Connection => {
    opened += 1;
    const connection: Connection = { socket: connect(Number(port), hostname), received: Buffer.alloc(0), pending: null };
    connection.socket.setNoDelay(true);
    connection.socket.on('data', (chunk: Buffer) => onData(connection, chunk));
    const fail = (error: Error) => {
      opened -= 1;
      const index = idle.indexOf(connection);
      if (index !== -1) idle.splice(index, 1);
      connection.pending?.reject(error);
      connection.pending = null;
    };
    connection.socket.on('error', fail);
    connection.socket.on('close', () => fail(new Error('the server closed the connection')));
    return connection;
  };

  const take = (): Promise<Connection> => {
    const connection = idle.pop();
    if (connection) return Promise.resolve(connection);
    if (opened < maxSockets) return Promise.resolve(open());
    return new Promise((resolve) => waiting.push(resolve));
  };

  return {
    /** Sends a request (a JSON body when given); resolves with the answer's status and body. */
    async request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<LeanAnswer> {
      const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
      const lines = [`${method} ${path} HTTP/1.1`, `host: ${host}`, 'connection: keep-alive'];
      for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
      if (body !== undefined) lines.push('content-type: application/json');
      lines.push(`content-length: ${payload.length}`, '', '');
      const connection = await take();
      return new Promise<LeanAnswer>((resolve, reject) => {
        connection.pending = { resolve, reject };
        connection.socket.write(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), payload]));
      });
    },
    /** Closes every connection. */
    close(): void {
      for (const connection of idle.splice(0)) connection.socket.destroy();
    },
  };
}
