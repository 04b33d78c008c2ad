import type { Pool } from 'pg';
import { AppError, forbidden, unauthorized } from '@catalog/platform';
import type { Permission, Product } from '@catalog/contracts';
import { parseKey, secretMatches } from './api-keys.js';
import { findActiveKeyCredentials } from '../persistence/api-keys.js';

export interface Caller {
  tenantId: string;
  keyId: string;
  permissions: string[];
  products: string[];
  /** `public-api:<keyId>`, or the name the key is bound to. */
  sourceSystem: string;
}

/** Reads `Authorization: Bearer sk_…` and checks it against the stored key, on every request. */
export async function authenticate(pool: Pool, authorization: string | undefined): Promise<Caller> {
  if (!authorization) throw unauthorized('missing API key: send Authorization: Bearer <API_KEY>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('malformed Authorization header: expected Bearer <API_KEY>');
  const parsed = parseKey(match[1]!);
  if (!parsed) throw unauthorized('invalid API key');
  const credentials = await findActiveKeyCredentials(pool, parsed.keyId);
  if (!secretMatches(parsed.secret, credentials?.secret_hash ?? null) || !credentials) throw unauthorized('invalid API key');
  return {
    tenantId: credentials.organization_id,
    keyId: credentials.id,
    permissions: credentials.permissions,
    products: credentials.products,
    sourceSystem: credentials.source_system ?? `public-api:${credentials.id}`,
  };
}

/** 403 when the key lacks the permission; then 402 when the plan lacks the product. */
export function authorize(caller: Caller, permission: Permission, product: Product, entitlement: boolean): void {
  if (!caller.permissions.includes(permission)) {
    throw forbidden(`this API key lacks the ${permission} permission`, { requiredPermission: permission });
  }
  if (entitlement && !caller.products.includes(product)) {
    throw new AppError(402, 'plan_required', `the organization's plan has no API access for the ${product} product`, { product });
  }
}
