import type { Migrations } from '@catalog/platform';
import { outbox } from './0001_outbox.js';
import { outboxRelay } from './0002_outbox_relay.js';
import { outboxRls } from './0003_outbox_rls.js';
import { tracks } from './0004_tracks.js';
import { projection } from './0005_projection.js';
import { trackWords } from './0006_track_words.js';
import { trackCatalogVersions } from './0007_track_catalog_versions.js';
import { assetStatesByEntity } from './0008_asset_states_by_entity.js';
import { trackWordsChangedOnly } from './0009_track_words_changed_only.js';
import { trackWordsFilters } from './0010_track_words_filters.js';
import { assignments } from './0011_assignments.js';
import { relations } from './0012_relations.js';
import { subscriptions } from './0013_subscriptions.js';
import { trackWordsWeights } from './0014_track_words_weights.js';
import { dropTracksSearchGin } from './0015_drop_tracks_search_gin.js';

export const libraryMigrations: Migrations = {
  '0001_outbox': outbox,
  '0002_outbox_relay': outboxRelay,
  '0003_outbox_rls': outboxRls,
  '0004_tracks': tracks,
  '0005_projection': projection,
  '0006_track_words': trackWords,
  '0007_track_catalog_versions': trackCatalogVersions,
  '0008_asset_states_by_entity': assetStatesByEntity,
  '0009_track_words_changed_only': trackWordsChangedOnly,
  '0010_track_words_filters': trackWordsFilters,
  '0011_assignments': assignments,
  '0012_relations': relations,
  '0013_subscriptions': subscriptions,
  '0014_track_words_weights': trackWordsWeights,
  '0015_drop_tracks_search_gin': dropTracksSearchGin,
};
