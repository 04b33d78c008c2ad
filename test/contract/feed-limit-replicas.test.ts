import { readConfig } from '@catalog/platform';
import { gatewayConfig, startGateway, type GatewayHandle } from '@catalog/gateway';
import { testLogger } from '@catalog/testing';
import { apiClient } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

let system: RunningSystem;
let secondGateway: GatewayHandle;

beforeAll(async () => {
  system = await startSystem();
  // A second replica of the gateway: same database, same NATS prefix, its own port.
  secondGateway = await startGateway(readConfig(gatewayConfig, system.env), { logger: testLogger('gateway-2') });
});
afterAll(async () => {
  await secondGateway?.stop();
  await system?.stop();
});

/**
 * The feed's 60 requests a minute per key hold across gateway replicas when the requests race:
 * the admission is one statement on the shared row (decision 0033).
 */
test('61 concurrent feed requests of one key split across two gateways: exactly 60 answered 200 and one 429 rate_limited with Retry-After', async () => {
  const { key } = await apiClient(system.baseUrl).tenant();
  const gateways = [system.baseUrl, secondGateway.url];
  const answers = await Promise.all(
    Array.from({ length: 61 }, async (_, i) => {
      const response = await fetch(`${gateways[i % 2]}/api/v1/catalog/events?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as { error?: { code: string }; events?: unknown[] },
      };
    }),
  );
  const ok = answers.filter((a) => a.status === 200);
  const limited = answers.filter((a) => a.status !== 200);
  expect({ ok: ok.length, limited: limited.map((a) => a.status) }).toEqual({ ok: 60, limited: [429] });
  expect(limited[0]!.body.error?.code).toBe('rate_limited');
  expect(Number(limited[0]!.retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(limited[0]!.retryAfter)).toBeLessThanOrEqual(60);
  expect(Number.isInteger(Number(limited[0]!.retryAfter))).toBe(true);
  for (const answer of ok) expect(answer.body).toEqual({ events: [], nextCursor: null, hasMore: false });
});
