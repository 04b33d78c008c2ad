import type { Kysely, Migration } from 'kysely';
import { enableTenantOrSystemRlsV1 } from '@catalog/platform';

/**
 * Row-level security on the tables the service also works on for every tenant at once (decision
 * 0057): bound to a tenant, code sees only that tenant's rows; relays and sweepers,
 * outside any tenant's context, still see every row. Frozen in time.
 */
export const outboxRls: Migration = {
  async up(db: Kysely<unknown>) {
    await enableTenantOrSystemRlsV1(db, 'analysis', 'outbox');
  },
};
