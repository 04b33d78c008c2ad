export { libraryConfig, type LibraryConfig } from './config.js';
export { startLibraryService } from './service.js';
export { libraryMigrations } from './migrations/index.js';
