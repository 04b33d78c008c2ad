/**
 * The demo organisation `npm start` prints a key of: created once through the admin API and kept
 * in `.local/demo.json`, so every run reuses it (and its data) and issues a fresh key.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface DemoOrganization {
  orgId: string;
  key: string;
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

/** The organisation id kept by an earlier run, if the gateway still knows it. */
async function earlierOrganization(api: AdminApi, file: string): Promise<string | undefined> {
  if (!existsSync(file)) return undefined;
  const { orgId } = JSON.parse(readFileSync(file, 'utf8')) as { orgId?: string };
  if (!orgId) return undefined;
  try {
    await admin(api, 'GET', `/admin/v1/organizations/${orgId}`);
    return orgId;
  } catch {
    return undefined;
  }
}

/** Reuses the demo organisation of an earlier run (kept in `file`) or creates it; issues a new key. */
export async function demoOrganization(api: AdminApi, file: string): Promise<DemoOrganization> {
  let orgId = await earlierOrganization(api, file);
  if (!orgId) {
    orgId = (await admin<{ id: string }>(api, 'POST', '/admin/v1/organizations', { name: 'Demo Radio', products: ['catalog', 'library'] }))
      .id;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ orgId }));
  }
  const issued = await admin<{ key: string }>(api, 'POST', `/admin/v1/organizations/${orgId}/api-keys`, {
    name: `demo ${new Date().toISOString()}`,
    permissions: ['catalog:api', 'catalog:analysis', 'library:api'],
  });
  return { orgId, key: issued.key };
}
