import type { Kysely, Migration } from 'kysely';
import { createOutboxTableV1 } from '@catalog/platform';

/** The outbox of the analysis schema. Frozen in time. */
export const outbox: Migration = {
  async up(db: Kysely<unknown>) {
    await createOutboxTableV1(db, 'analysis');
  },
};
