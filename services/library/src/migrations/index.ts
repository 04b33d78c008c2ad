import type { Migrations } from '@catalog/platform';
import { outbox } from './0001_outbox.js';

export const libraryMigrations: Migrations = {
  '0001_outbox': outbox,
};
