export * from './common.js';
export * from '../support/env-schema.js';
export * from './read-config.js';
export * from './service-config.js';
