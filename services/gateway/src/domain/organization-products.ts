import type { Kysely } from 'kysely';
import type { OrganizationProducts } from '@catalog/contracts';
import { notFound } from '@catalog/platform';
import { findOrganization } from '../persistence/organizations.js';
import type { GatewayDb } from '../persistence/tables.js';

/** The products of an organisation's plan, which the library asks for before it projects a tenant's events (decision 0149). */
export async function organizationProducts(db: Kysely<GatewayDb>, organizationId: string): Promise<OrganizationProducts> {
  const organization = await findOrganization(db, organizationId);
  if (!organization) throw notFound('organization');
  return { products: organization.products as OrganizationProducts['products'] };
}
