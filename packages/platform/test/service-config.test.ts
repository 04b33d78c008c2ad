import { ConfigError, Env, outboxServiceConfig, readConfig, rpcTimeoutEnv } from '@catalog/platform';

const probeConfig = outboxServiceConfig('probe', 8099, {
  callTimeoutMs: rpcTimeoutEnv('PROBE_CALL_TIMEOUT_MS', 'wait'),
  limits: Env.group({ burst: Env.integer({ env: 'PROBE_BURST', default: 10, minimum: 1, description: 'burst' }) }),
});

const ENV = {
  DATABASE_URL: 'postgres://probe_app:pw@db/catalog',
  NATS_URL: 'nats://nats:4222',
  CALL_CONTEXT_SECRET: 'a-call-context-secret-of-enough-length-0123456789',
};

test('outboxServiceConfig: the common settings, the outbox relay options and the service own variables, groups kept', () => {
  const config = readConfig(probeConfig, { ...ENV, OUTBOX_RETENTION_DAYS: '2', PROBE_CALL_TIMEOUT_MS: '2500' });
  expect(config).toMatchObject({
    serviceName: 'probe',
    httpPort: 8099,
    databaseUrl: ENV.DATABASE_URL,
    callTimeoutMs: 2500,
    limits: { burst: 10 },
    outbox: { retentionMs: 2 * 24 * 3600_000 },
  });
  expect(readConfig(probeConfig, ENV).callTimeoutMs).toBe(10_000);
});

test('outboxServiceConfig: a bad variable of any part is named in the one error', () => {
  const read = () => readConfig(probeConfig, { ...ENV, OUTBOX_BATCH_SIZE: '0', PROBE_CALL_TIMEOUT_MS: '60001', PROBE_HTTP_PORT: 'x' });
  expect(read).toThrow(ConfigError);
  for (const name of ['OUTBOX_BATCH_SIZE', 'PROBE_CALL_TIMEOUT_MS', 'PROBE_HTTP_PORT']) expect(read).toThrow(name);
});
