export { catalogConfig, type CatalogConfig } from './config.js';
export {
  catalogOperations,
  startCatalogService,
  type CatalogOperationDeps,
  type CatalogServiceHandle,
  type CatalogServiceOptions,
} from './service.js';
export { catalogMigrations } from './migrations/index.js';
export type { CatalogDb, EntitiesTable, EntityTypesTable } from './persistence/tables.js';
export type { EntityPage } from './entities/domain/entities.js';
export { assetClient, type AssetClient } from './integration/asset-client.js';
export type { ImportFiles, OpenedFile } from './imports/integration/import-files.js';
export type { AttachSweepResult } from './versions/domain/attach-intents.js';
export type { VersionsTable, AssetStatesTable, AttachIntentsTable } from './persistence/tables.js';
