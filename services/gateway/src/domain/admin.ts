import type { Kysely, Transaction } from 'kysely';
import { newId, notFound, runTransaction } from '@catalog/platform';
import type {
  ApiKey,
  CreateApiKeyBody,
  CreateOrganizationBody,
  IssuedApiKey,
  Organization,
  UpdateOrganizationBody,
} from '@catalog/contracts';
import { issueKey } from './api-keys.js';
import { findOrganization, insertOrganization, updateOrganization, type OrganizationRow } from '../persistence/organizations.js';
import { insertApiKey, listActiveKeys, replaceSecret, revokeKey, setSourceSystem, type ApiKeyRow } from '../persistence/api-keys.js';
import { recordKeyChange } from '../persistence/key-changes.js';
import type { GatewayDb } from '../persistence/tables.js';

function organizationJson(row: OrganizationRow): Organization {
  return {
    id: row.id,
    name: row.name,
    products: row.products as Organization['products'],
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function apiKeyJson(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    permissions: row.permissions as ApiKey['permissions'],
    sourceSystem: row.source_system,
    createdAt: row.created_at.toISOString(),
    rotatedAt: row.rotated_at ? row.rotated_at.toISOString() : null,
    previousKeyExpiresAt: row.previous_key_expires_at ? row.previous_key_expires_at.toISOString() : null,
  };
}

/**
 * The admin area: organisations with their plan products, API keys and their source-system
 * bindings. Each function is one operation of the admin routes (http/admin-operations.ts).
 */
export interface AdminDeps {
  db: Kysely<GatewayDb>;
  /**
   * After a change of keys or plans has committed: brings this replica's keys up to date before
   * the change is answered, and tells the other replicas (decision 0070).
   */
  keysChanged: () => Promise<void>;
}

/**
 * `write` in a transaction that also records, when it changed a row, the change for the
 * replicas (`changeOf` of the row); `keysChanged` once it committed.
 */
async function changingKeys<Row>(
  deps: AdminDeps,
  write: (trx: Transaction<GatewayDb>) => Promise<Row | undefined>,
  changeOf: (row: Row) => { keyId: string } | { organizationId: string },
): Promise<Row | undefined> {
  const row = await runTransaction(deps.db, async (trx) => {
    const written = await write(trx);
    if (written !== undefined) await recordKeyChange(trx, changeOf(written));
    return written;
  });
  if (row !== undefined) await deps.keysChanged();
  return row;
}

const keyChange = (row: ApiKeyRow) => ({ keyId: row.id });

async function organizationOr404(deps: AdminDeps, id: string): Promise<OrganizationRow> {
  const row = await findOrganization(deps.db, id);
  if (!row) throw notFound('organization');
  return row;
}

export async function createOrganization(deps: AdminDeps, input: CreateOrganizationBody): Promise<Organization> {
  return organizationJson(await insertOrganization(deps.db, { id: newId(), name: input.name, products: [...input.products] }));
}

export async function getOrganization(deps: AdminDeps, id: string): Promise<Organization> {
  return organizationJson(await organizationOr404(deps, id));
}

export async function changeOrganization(deps: AdminDeps, id: string, input: UpdateOrganizationBody): Promise<Organization> {
  const row = await changingKeys(
    deps,
    (trx) => updateOrganization(trx, id, { name: input.name, products: input.products && [...input.products] }),
    (updated) => ({ organizationId: updated.id }),
  );
  if (!row) throw notFound('organization');
  return organizationJson(row);
}

/** A new key of the organisation; the whole key is in this answer only. */
export async function createApiKey(deps: AdminDeps, organizationId: string, input: CreateApiKeyBody): Promise<IssuedApiKey> {
  await organizationOr404(deps, organizationId);
  const id = newId();
  const { key, secretHash } = issueKey(id);
  const row = await changingKeys(
    deps,
    (trx) =>
      insertApiKey(trx, {
        id,
        organization_id: organizationId,
        name: input.name,
        secret_hash: secretHash,
        permissions: [...input.permissions],
      }),
    keyChange,
  );
  return { ...apiKeyJson(row!), key };
}

export async function listApiKeys(deps: AdminDeps, organizationId: string): Promise<{ apiKeys: ApiKey[] }> {
  await organizationOr404(deps, organizationId);
  return { apiKeys: (await listActiveKeys(deps.db, organizationId)).map(apiKeyJson) };
}

/**
 * A new secret for the key. The old one stops working at once, or after `gracePeriodSeconds`; a
 * secret still in the grace period of an earlier rotation stops at once (decision 0120).
 */
export async function rotateApiKey(deps: AdminDeps, keyId: string, gracePeriodSeconds = 0): Promise<IssuedApiKey> {
  const { key, secretHash } = issueKey(keyId);
  const row = await changingKeys(deps, (trx) => replaceSecret(trx, keyId, secretHash, gracePeriodSeconds), keyChange);
  if (!row) throw notFound('api key');
  return { ...apiKeyJson(row), key };
}

export async function revokeApiKey(deps: AdminDeps, keyId: string): Promise<void> {
  if (!(await changingKeys(deps, (trx) => revokeKey(trx, keyId), keyChange))) throw notFound('api key');
}

/** Binds the key to a named source system (`null`: the key's own `public-api:<keyId>` again). */
export async function bindSourceSystem(deps: AdminDeps, keyId: string, name: string | null): Promise<ApiKey> {
  const row = await changingKeys(deps, (trx) => setSourceSystem(trx, keyId, name), keyChange);
  if (!row) throw notFound('api key');
  return apiKeyJson(row);
}
