export * from './database.js';
export * from './migrate.js';
