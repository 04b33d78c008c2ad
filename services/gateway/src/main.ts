import { runService } from '@catalog/platform';
import { gatewayConfig } from './config.js';
import { startGateway } from './service.js';

await runService('gateway', gatewayConfig, (config) => startGateway(config));
