import type { Migrations } from '@catalog/platform';
import { feed } from './0001_feed.js';

export const eventsMigrations: Migrations = {
  '0001_feed': feed,
};
