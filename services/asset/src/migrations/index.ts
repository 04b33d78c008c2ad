import type { Migrations } from '@catalog/platform';
import { outbox } from './0001_outbox.js';
import { assets } from './0002_assets.js';
import { outboxRelay } from './0003_outbox_relay.js';
import { assetVersions } from './0004_asset_versions.js';
import { tenantOrSystemRls } from './0005_tenant_or_system_rls.js';
import { dataAssets } from './0006_data_assets.js';

export const assetMigrations: Migrations = {
  '0001_outbox': outbox,
  '0002_assets': assets,
  '0003_outbox_relay': outboxRelay,
  '0004_asset_versions': assetVersions,
  '0005_tenant_or_system_rls': tenantOrSystemRls,
  '0006_data_assets': dataAssets,
};
