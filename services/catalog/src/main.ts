import { runService } from '@catalog/platform';
import { catalogConfig } from './config.js';
import { startCatalogService } from './service.js';

await runService('catalog', catalogConfig, (config) => startCatalogService(config));
