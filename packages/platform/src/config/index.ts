export * from './common.js';
export * from '../env-schema.js';
export * from './read-config.js';
export * from './service-config.js';
