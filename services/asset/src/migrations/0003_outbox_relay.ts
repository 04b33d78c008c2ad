import type { Kysely, Migration } from 'kysely';
import { createOutboxRelaySupportV1 } from '@catalog/platform';

/** What the outbox relay needs (NOTIFY on insert, index for pruning). Frozen in time. */
export const outboxRelay: Migration = {
  async up(db: Kysely<unknown>) {
    await createOutboxRelaySupportV1(db, 'asset');
  },
};
