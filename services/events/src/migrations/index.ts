import type { Migrations } from '@catalog/platform';
import { feed } from './0001_feed.js';
import { feedWriter } from './0002_feed_writer.js';
import { feedBody } from './0003_feed_body.js';
import { feedInsertByTenant } from './0004_feed_insert_by_tenant.js';
import { feedRetention } from './0005_feed_retention.js';
import { feedPruningPolicyOpaque } from './0006_feed_pruning_policy_opaque.js';

export const eventsMigrations: Migrations = {
  '0001_feed': feed,
  '0002_feed_writer': feedWriter,
  '0003_feed_body': feedBody,
  '0004_feed_insert_by_tenant': feedInsertByTenant,
  '0005_feed_retention': feedRetention,
  '0006_feed_pruning_policy_opaque': feedPruningPolicyOpaque,
};
