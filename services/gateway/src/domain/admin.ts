import type { Kysely, Transaction } from 'kysely';
import { badRequest, newId, notFound, runTransaction } from '@catalog/platform';
import {
  isReservedSourceSystem,
  type ApiKey,
  type BindSourceSystemBody,
  type CreateApiKeyBody,
  type CreateOrganizationBody,
  type IssuedApiKey,
  type Organization,
  type UpdateOrganizationBody,
} from '@catalog/contracts';
import { issueKey } from './api-keys.js';
import { findOrganization, insertOrganization, updateOrganization, type OrganizationRow } from '../persistence/organizations.js';
import {
  findActiveKeyOrganization,
  insertApiKey,
  listActiveKeys,
  replaceSecret,
  revokeKey,
  setSourceSystem,
  type ApiKeyRow,
  type SourceSystemBinding,
} from '../persistence/api-keys.js';
import { recordKeyChange } from '../persistence/key-changes.js';
import type { GatewayDb } from '../persistence/tables.js';
import type { IntegrationDirectory } from '../integration/catalog-integrations.js';

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
    integrationId: row.integration_id,
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
  /** The organisations' integrations, which source-system bindings name (decision 0149). */
  integrations: IntegrationDirectory;
  /** After an organisation was created or changed (committed): tells the services that follow its products. */
  organizationChanged: (organizationId: string) => void;
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
  const row = await insertOrganization(deps.db, { id: newId(), name: input.name, products: [...input.products] });
  deps.organizationChanged(row.id);
  return organizationJson(row);
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
  deps.organizationChanged(row.id);
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

/** The integration's name is what the key's writes carry: never one the platform writes itself. */
function refuseReserved(name: string): void {
  if (isReservedSourceSystem(name)) {
    throw badRequest('reserved_source_system', `${name} is a source system of the platform, not an integration's`, { name });
  }
}

/**
 * Binds the key to an integration of its own organisation (decision 0149), named by id or, as
 * before, by name: its writes then carry the integration's name as `sourceSystem`. 404 for a key
 * that is not active and for an integration the organisation does not have; 400 for a reserved name.
 */
export async function bindSourceSystem(deps: AdminDeps, keyId: string, target: BindSourceSystemBody, requestId: string): Promise<ApiKey> {
  const organizationId = await findActiveKeyOrganization(deps.db, keyId);
  if (!organizationId) throw notFound('api key');
  if ('name' in target) refuseReserved(target.name);
  const integration =
    'integrationId' in target
      ? await deps.integrations.byId(organizationId, target.integrationId, requestId)
      : await deps.integrations.byName(organizationId, target.name, requestId);
  refuseReserved(integration.sourceSystem);
  return bindKey(deps, keyId, { name: integration.sourceSystem, integrationId: integration.id });
}

/** The key's own `public-api:<keyId>` again. */
export async function unbindSourceSystem(deps: AdminDeps, keyId: string): Promise<void> {
  await bindKey(deps, keyId, null);
}

async function bindKey(deps: AdminDeps, keyId: string, binding: SourceSystemBinding | null): Promise<ApiKey> {
  const row = await changingKeys(deps, (trx) => setSourceSystem(trx, keyId, binding), keyChange);
  if (!row) throw notFound('api key');
  return apiKeyJson(row);
}
