/** What the events benchmarks share: the feed over NATS, tenants with keys, percentiles. */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { apiClient, testCallContext } from '@catalog/testing';
import type { EventsPage } from '@catalog/contracts';
import { callRpc, JsonText, type NatsConnection, type Subjects } from '@catalog/platform';
import { repoRoot } from '../support/processes.js';

/** The services' FEED_CURSOR_SECRET of this run. */
export const CURSOR_SECRET = `bench-${randomBytes(16).toString('hex')}`;
export const resultsDir = join(repoRoot, 'bench', 'results');

export { percentiles } from '../support/percentiles.js';

/** A page as received, parsed when called (after the timing window). */
export type ReceivedPage = () => EventsPage;

/** `listEvents` over NATS as the gateway calls it; resolves with the page as received, unparsed. */
export function feedFetcher(nc: NatsConnection, subjects: Subjects) {
  return async (tenantId: string, query: Record<string, unknown>): Promise<ReceivedPage> => {
    const reply = await callRpc(
      { nc, subjects, callContext: testCallContext(), timeoutMs: 30_000, passJsonThrough: true },
      'events',
      'listEvents',
      { params: {}, query, body: null },
      {
        tenantId,
        keyId: null,
        sourceSystem: 'bench',
        requestId: 'bench',
      },
    );
    if (!reply.ok) throw new Error(`listEvents: ${JSON.stringify(reply.error)}`);
    const body = reply.body;
    return () => (body instanceof JsonText ? body.parse() : body) as EventsPage;
  };
}

/** `listEvents` over NATS, the page parsed. */
export function feedCaller(nc: NatsConnection, subjects: Subjects) {
  const fetchPage = feedFetcher(nc, subjects);
  return async (tenantId: string, query: Record<string, unknown>): Promise<EventsPage> => (await fetchPage(tenantId, query))();
}

// ---------------------------------------------------------------------------------------------
// (c) page latency on millions of events

/** Keys of one tenant used in turn, so the feed's 60 requests per minute per key never binds. */
export interface TenantKeys {
  tenantId: string;
  next(): string;
}

/** `count` organisations through the admin API, the `t`-th with `keysFor(t)` API keys. */
export async function createTenants(
  base: string,
  adminToken: string,
  count: number,
  keysFor: (t: number) => number,
): Promise<TenantKeys[]> {
  const api = apiClient(base, adminToken);
  const tenants: TenantKeys[] = [];
  for (let t = 0; t < count; t += 1) {
    const orgId = await api.organization({ name: `Station ${t}` });
    const keys: string[] = [];
    for (let k = 0; k < keysFor(t); k += 1) keys.push((await api.apiKey(orgId, { name: `reader ${k}` })).key);
    let i = 0;
    tenants.push({ tenantId: orgId, next: () => keys[(i += 1) % keys.length]! });
  }
  return tenants;
}
