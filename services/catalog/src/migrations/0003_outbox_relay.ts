import type { Kysely, Migration } from 'kysely';
import { createOutboxRelaySupportV1 } from '@catalog/platform';

/** What the outbox relay needs from the catalog outbox (NOTIFY trigger, pruning index). Frozen. */
export const outboxRelay: Migration = {
  async up(db: Kysely<unknown>) {
    await createOutboxRelaySupportV1(db, 'catalog');
  },
};
