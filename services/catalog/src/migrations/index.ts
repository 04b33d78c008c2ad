import type { Migrations } from '@catalog/platform';
import { entities } from './0001_entities.js';
import { versions } from './0002_versions.js';
import { outboxRelay } from './0003_outbox_relay.js';
import { attachIntents } from './0004_attach_intents.js';
import { attachIntentClaims } from './0005_attach_intent_claims.js';
import { tenantOrSystemRls } from './0006_tenant_or_system_rls.js';
import { entityTenants } from './0007_entity_tenants.js';
import { cuePointMarkers } from './0008_cue_point_markers.js';
import { integrations } from './0009_integrations.js';
import { assignments } from './0010_assignments.js';
import { importJobs } from './0011_import_jobs.js';
import { entityImportKeys } from './0012_entity_import_keys.js';
import { relations } from './0013_relations.js';
import { molecules } from './0014_molecules.js';
import { unfinishedJobsIndex } from './0015_unfinished_jobs_index.js';
import { integrationSourceSystem } from './0016_integration_source_system.js';

/** The catalog schema's migrations, applied in name order. */
export const catalogMigrations: Migrations = {
  '0001_entities': entities,
  '0002_versions': versions,
  '0003_outbox_relay': outboxRelay,
  '0004_attach_intents': attachIntents,
  '0005_attach_intent_claims': attachIntentClaims,
  '0006_tenant_or_system_rls': tenantOrSystemRls,
  '0007_entity_tenants': entityTenants,
  '0008_cue_point_markers': cuePointMarkers,
  '0009_integrations': integrations,
  '0010_assignments': assignments,
  '0011_import_jobs': importJobs,
  '0012_entity_import_keys': entityImportKeys,
  '0013_relations': relations,
  '0014_molecules': molecules,
  '0015_unfinished_jobs_index': unfinishedJobsIndex,
  '0016_integration_source_system': integrationSourceSystem,
};
