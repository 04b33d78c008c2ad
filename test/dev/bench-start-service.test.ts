import { createServer, type Server } from 'node:net';
import { startService } from '../../bench/support/processes.js';

describe('a benchmark starting a service', () => {
  let taken: Server;
  let port: number;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  });

  it('refuses a port something else listens on, instead of measuring whatever answers there', async () => {
    await expect(startService('gateway', {}, port)).rejects.toThrow(`port ${port} is in use`);
  });
});
