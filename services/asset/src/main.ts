import { runService } from '@catalog/platform';
import { assetConfig } from './config.js';
import { startAssetService } from './service.js';

await runService('asset', assetConfig, (config) => startAssetService(config));
