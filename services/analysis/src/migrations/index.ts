import type { Migrations } from '@catalog/platform';
import { outbox } from './0001_outbox.js';
import { outboxRelay } from './0002_outbox_relay.js';
import { outboxRls } from './0003_outbox_rls.js';
import { jobsAndCredits } from './0004_jobs_and_credits.js';
import { cuePointMarkerRetries } from './0005_cue_point_marker_retries.js';
import { resultParts } from './0006_result_parts.js';
import { jobsOnTheEventsStream } from './0007_jobs_on_the_events_stream.js';
import { unfinishedJobsIndex } from './0008_unfinished_jobs_index.js';

export const analysisMigrations: Migrations = {
  '0001_outbox': outbox,
  '0002_outbox_relay': outboxRelay,
  '0003_outbox_rls': outboxRls,
  '0004_jobs_and_credits': jobsAndCredits,
  '0005_cue_point_marker_retries': cuePointMarkerRetries,
  '0006_result_parts': resultParts,
  '0007_jobs_on_the_events_stream': jobsOnTheEventsStream,
  '0008_unfinished_jobs_index': unfinishedJobsIndex,
};
