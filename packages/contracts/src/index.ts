export * from './openapi.js';
export * from './routes.js';
export * from './schemas/admin.js';
export * from './schemas/catalog.js';
export * from './schemas/common.js';
export * from './validation.js';
export * from './events/registry.js';
