/**
 * The demo organisation `npm start` prints a key of: created once through the admin API and kept
 * in `.local/demo.json`, so every run reuses it (and its data) and issues a fresh key. It gets
 * `DEMO_CREDITS` analysis credits once, through the ledger like any grant (decision 0117).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DemoOrganization {
  orgId: string;
  key: string;
}

/** Analysis credits the demo organisation is granted once, enough to try every analysis many times. */
export const DEMO_CREDITS = 1_000;
/** The ledger reason of that grant: how a later run knows it was made. */
export const DEMO_GRANT_REASON = 'npm start: demo credits';

/** What `.local/demo.json` remembers. */
interface DemoState {
  orgId?: string;
  /** The demo credits were granted (and are in the ledger with `DEMO_GRANT_REASON`). */
  creditsGranted?: boolean;
}

interface AdminApi {
  baseUrl: string;
  adminToken: string;
}

async function admin<T>(api: AdminApi, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

function readState(file: string): DemoState {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoState) : {};
}

function writeState(file: string, state: DemoState): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(state));
}

/** The organisation id kept by an earlier run, if the gateway still knows it. */
async function earlierOrganization(api: AdminApi, state: DemoState): Promise<string | undefined> {
  if (!state.orgId) return undefined;
  try {
    await admin(api, 'GET', `/admin/v1/organizations/${state.orgId}`);
    return state.orgId;
  } catch {
    return undefined;
  }
}

/**
 * Grants the demo credits unless the ledger already has that grant (a run stopped between the
 * grant and writing down that it was made): never twice.
 */
async function grantDemoCreditsOnce(api: AdminApi, orgId: string): Promise<void> {
  const path = `/admin/v1/organizations/${orgId}/credits`;
  const ledger = await admin<{ entries: Array<{ kind: string; reason: string | null }> }>(api, 'GET', `${path}?limit=500`);
  if (ledger.entries.some((entry) => entry.kind === 'grant' && entry.reason === DEMO_GRANT_REASON)) return;
  await admin(api, 'POST', path, { amount: DEMO_CREDITS, reason: DEMO_GRANT_REASON });
}

/**
 * Reuses the demo organisation of an earlier run (kept in `file`) or creates it, grants it the
 * demo credits once, and issues a new key with the catalog, analysis and library permissions.
 */
export async function demoOrganization(api: AdminApi, file: string): Promise<DemoOrganization> {
  const state = readState(file);
  let orgId = await earlierOrganization(api, state);
  if (!orgId) {
    orgId = (await admin<{ id: string }>(api, 'POST', '/admin/v1/organizations', { name: 'Demo Radio', products: ['catalog', 'library'] }))
      .id;
    writeState(file, { orgId });
  }
  if (!(orgId === state.orgId && state.creditsGranted)) {
    await grantDemoCreditsOnce(api, orgId);
    writeState(file, { orgId, creditsGranted: true });
  }
  const issued = await admin<{ key: string }>(api, 'POST', `/admin/v1/organizations/${orgId}/api-keys`, {
    name: `demo ${new Date().toISOString()}`,
    permissions: ['catalog:api', 'catalog:analysis', 'library:api'],
  });
  return { orgId, key: issued.key };
}
