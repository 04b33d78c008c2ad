export { gatewayConfig, type GatewayConfig } from './config.js';
export { startGateway, type GatewayHandle } from './service.js';
export { issueKey, parseKey } from './domain/api-keys.js';
export { gatewayMigrations } from './migrations/index.js';
