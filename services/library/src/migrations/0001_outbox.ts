import type { Kysely, Migration } from 'kysely';
import { createOutboxTableV1 } from '@catalog/platform';

/** The outbox of the library schema. Frozen in time. */
export const outbox: Migration = {
  async up(db: Kysely<unknown>) {
    await createOutboxTableV1(db, 'library');
  },
};
