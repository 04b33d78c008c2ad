import type { Kysely } from 'kysely';
import { newId, notFound } from '@catalog/platform';
import type {
  ApiKey,
  BindSourceSystemBody,
  CreateApiKeyBody,
  CreateOrganizationBody,
  Organization,
  UpdateOrganizationBody,
} from '@catalog/contracts';
import { issueKey } from './api-keys.js';
import { findOrganization, insertOrganization, updateOrganization, type OrganizationRow } from '../persistence/organizations.js';
import { insertApiKey, listActiveKeys, replaceSecret, revokeKey, setSourceSystem, type ApiKeyRow } from '../persistence/api-keys.js';
import type { GatewayDb } from '../persistence/tables.js';

/** A validated admin request and the status and body that answer it. */
export interface LocalRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}
export interface LocalResult {
  status: number;
  body?: unknown;
}
export type LocalHandler = (request: LocalRequest) => Promise<LocalResult>;

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
  };
}

/** The admin area: organisations, plan products, API keys and their source-system bindings. */
export function adminHandlers(db: Kysely<GatewayDb>): Record<string, LocalHandler> {
  const organizationOr404 = async (id: string): Promise<OrganizationRow> => {
    const row = await findOrganization(db, id);
    if (!row) throw notFound('organization');
    return row;
  };
  return {
    async createOrganization({ body }) {
      const input = body as CreateOrganizationBody;
      const row = await insertOrganization(db, { id: newId(), name: input.name, products: [...input.products] });
      return { status: 201, body: organizationJson(row) };
    },
    async getOrganization({ params }) {
      return { status: 200, body: organizationJson(await organizationOr404(params.orgId!)) };
    },
    async updateOrganization({ params, body }) {
      const input = body as UpdateOrganizationBody;
      const row = await updateOrganization(db, params.orgId!, { name: input.name, products: input.products && [...input.products] });
      if (!row) throw notFound('organization');
      return { status: 200, body: organizationJson(row) };
    },
    async createApiKey({ params, body }) {
      const input = body as CreateApiKeyBody;
      await organizationOr404(params.orgId!);
      const id = newId();
      const { key, secretHash } = issueKey(id);
      const row = await insertApiKey(db, {
        id,
        organization_id: params.orgId!,
        name: input.name,
        secret_hash: secretHash,
        permissions: [...input.permissions],
      });
      return { status: 201, body: { ...apiKeyJson(row), key } };
    },
    async listApiKeys({ params }) {
      await organizationOr404(params.orgId!);
      return { status: 200, body: { apiKeys: (await listActiveKeys(db, params.orgId!)).map(apiKeyJson) } };
    },
    async rotateApiKey({ params }) {
      const { key, secretHash } = issueKey(params.keyId!);
      const row = await replaceSecret(db, params.keyId!, secretHash);
      if (!row) throw notFound('api key');
      return { status: 200, body: { ...apiKeyJson(row), key } };
    },
    async revokeApiKey({ params }) {
      if (!(await revokeKey(db, params.keyId!))) throw notFound('api key');
      return { status: 204 };
    },
    async bindSourceSystem({ params, body }) {
      const row = await setSourceSystem(db, params.keyId!, (body as BindSourceSystemBody).name);
      if (!row) throw notFound('api key');
      return { status: 200, body: apiKeyJson(row) };
    },
    async unbindSourceSystem({ params }) {
      if (!(await setSourceSystem(db, params.keyId!, null))) throw notFound('api key');
      return { status: 204 };
    },
  };
}
