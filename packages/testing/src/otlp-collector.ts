import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in OTLP/HTTP collector on loopback: keeps the body of every trace export it receives. */
export interface OtlpCollector {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Bodies (OTLP JSON) posted to /v1/traces, in arrival order. */
  traces: string[];
  close(): Promise<void>;
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const traces: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') traces.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    traces,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
