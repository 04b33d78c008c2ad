import type { Migrations } from '@catalog/platform';
import { feed } from './0001_feed.js';
import { feedWriter } from './0002_feed_writer.js';
import { feedBody } from './0003_feed_body.js';
import { feedInsertByTenant } from './0004_feed_insert_by_tenant.js';
import { feedRetention } from './0005_feed_retention.js';

export const eventsMigrations: Migrations = {
  '0001_feed': feed,
  '0002_feed_writer': feedWriter,
  '0003_feed_body': feedBody,
  '0004_feed_insert_by_tenant': feedInsertByTenant,
  '0005_feed_retention': feedRetention,
};
