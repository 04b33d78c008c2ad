import type { Migrations } from '@catalog/platform';
import { entities } from './0001_entities.js';

/** The catalog schema's migrations, applied in name order. */
export const catalogMigrations: Migrations = {
  '0001_entities': entities,
};
