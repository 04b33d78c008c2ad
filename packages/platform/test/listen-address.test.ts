import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { commonConfig, readConfig, startServiceRuntime } from '@catalog/platform';
import { capturingLogger, createTestDatabase, serviceEnvironment, uniqueNatsPrefix, type TestDatabase } from '@catalog/testing';

/**
 * Where a service's HTTP listener binds (decision 0117): this machine only unless HTTP_HOST says
 * otherwise (the chart sets 0.0.0.0 for a pod), and its `http listening` line names the address
 * it is really bound to.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('listenaddress');
});
afterAll(() => database.drop());

/** A service runtime from `env` (no HTTP_HOST unless given), its listener started, and its log lines. */
async function listening(env: Record<string, string>) {
  const config = readConfig(commonConfig('probe', 0), {
    ...(await serviceEnvironment(database, ['probe'])),
    NATS_PREFIX: uniqueNatsPrefix(),
    PROBE_HTTP_PORT: '0',
    ...env,
  });
  const { logger, lines } = capturingLogger('probe');
  const runtime = await startServiceRuntime({ config, schema: 'probe', migrations: {}, version: '0.0.0', logger });
  const server = await runtime.listen();
  const logged = lines().find((line) => line.msg === 'http listening');
  return { runtime, server, logged };
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 5_000 });
    const settle = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
    socket.once('timeout', () => settle(false));
  });
}

/** This machine's addresses other than loopback (a container has at least its own). */
const outwardAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')
    .map((entry) => entry!.address);

test('with the defaults a service listens on 127.0.0.1 only, and says so', async () => {
  const { runtime, server, logged } = await listening({});
  try {
    expect(server.server.address()).toMatchObject({ address: '127.0.0.1' });
    expect(logged).toMatchObject({ level: 30, address: '127.0.0.1', port: server.port });
    expect(await accepts('127.0.0.1', server.port)).toBe(true);
    for (const address of outwardAddresses())
      expect({ address, accepted: await accepts(address, server.port) }).toEqual({ address, accepted: false });
  } finally {
    await runtime.stop();
  }
});

test('HTTP_HOST=0.0.0.0 (what the chart sets) listens on every interface, and the log line says 0.0.0.0', async () => {
  const { runtime, server, logged } = await listening({ HTTP_HOST: '0.0.0.0' });
  try {
    expect(server.server.address()).toMatchObject({ address: '0.0.0.0' });
    expect(logged).toMatchObject({ address: '0.0.0.0', port: server.port });
    // A client on this machine still reaches it through loopback.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    for (const address of outwardAddresses())
      expect({ address, accepted: await accepts(address, server.port) }).toEqual({ address, accepted: true });
  } finally {
    await runtime.stop();
  }
});
