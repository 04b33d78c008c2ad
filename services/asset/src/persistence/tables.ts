import type { ColumnType } from 'kysely';
import type { AssetRetention, AssetStatus, StoredAssetKind } from '@catalog/contracts';

/** Timestamps the database sets on insert; updates set them explicitly. */
type CreatedAt = ColumnType<Date, never, never>;
/** int8 columns arrive as strings (pg keeps 64-bit integers exact). */
type NullableInt8 = ColumnType<string | null, number | null | undefined, number | null>;

export interface AssetsTable {
  id: string;
  tenant_id: string;
  retention: AssetRetention;
  kind: StoredAssetKind;
  status: AssetStatus;
  entity_id: string | null;
  /** The version whose file this is (its deletion releases the asset); null when unknown or standalone. */
  version_id: string | null;
  filename: string;
  content_type: string;
  declared_size: NullableInt8;
  declared_sha256: string | null;
  upload_id: string;
  object_key: string;
  upload_expires_at: Date;
  uploaded_size: NullableInt8;
  uploaded_sha256: string | null;
  uploaded_etag: string | null;
  size: NullableInt8;
  sha256: string | null;
  blob_etag: string | null;
  duration_ms: number | null;
  failure_code: string | null;
  failure_message: string | null;
  expires_at: Date | null;
  confirmed_at: Date | null;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, never, Date>;
}

export interface ExpiriesTable {
  asset_id: string;
  tenant_id: string;
  due_at: Date;
}

/** The tables of the `asset` schema as the service's queries see them. */
export interface AssetDb {
  assets: AssetsTable;
  expiries: ExpiriesTable;
}
