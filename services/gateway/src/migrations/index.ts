import type { Migrations } from '@catalog/platform';
import { organizationsAndKeys } from './0001_organizations_and_keys.js';

export const gatewayMigrations: Migrations = {
  '0001_organizations_and_keys': organizationsAndKeys,
};
