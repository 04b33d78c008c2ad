import type { ColumnType, Generated } from 'kysely';

export interface OrganizationsTable {
  id: string;
  name: string;
  products: string[];
  created_at: Generated<Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  name: string;
  secret_hash: Buffer;
  permissions: string[];
  source_system: string | null;
  created_at: Generated<Date>;
  rotated_at: Date | null;
  revoked_at: Date | null;
}

export interface GatewayDb {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
}
