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
  /** The integration the key is bound to (decision 0149); null when unbound or bound by a name before it. */
  integration_id: Generated<string | null>;
  created_at: Generated<Date>;
  rotated_at: Date | null;
  revoked_at: Date | null;
  /** The former secret's hash while a rotation's grace period runs (decision 0120), with its end. */
  previous_secret_hash: Buffer | null;
  previous_secret_expires_at: Date | null;
}

export interface ApiKeyChangesTable {
  /** bigserial: pg returns int8 as a string. */
  seq: Generated<string>;
  key_id: string | null;
  organization_id: string | null;
  changed_at: Generated<Date>;
}

export interface ApiKeyChangeHorizonTable {
  one: Generated<boolean>;
  /** bigint: the highest change number pruned so far (0 before any). */
  pruned_through: Generated<string>;
}

export interface GatewayDb {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  api_key_changes: ApiKeyChangesTable;
  api_key_change_horizon: ApiKeyChangeHorizonTable;
}
