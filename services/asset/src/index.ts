export { assetConfig, type AssetConfig, type BlobConfig } from './config.js';
export { startAssetService, type AssetServiceHandle } from './service.js';
export { assetMigrations } from './migrations/index.js';
