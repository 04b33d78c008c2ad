export { readAssetConfig, type AssetConfig } from './config.js';
export { startAssetService } from './service.js';
