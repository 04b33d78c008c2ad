import type { ListVersionsQuery, Version, VersionList } from '@catalog/contracts';
import { fitPage, inTenantScope, notFound, type CallContext, type Kysely } from '@catalog/platform';
import { findEntity } from '../../persistence/entities.js';
import type { CatalogDb } from '../../persistence/tables.js';
import { selectVersionRecords } from '../persistence/versions.js';
import { versionCursor } from './version-cursor.js';
import { versionView } from './version-view.js';

/** One version of the entity as the API shows it (with its file's status), or 404. */
export async function readVersion(db: Kysely<CatalogDb>, tenantId: string, entityId: string, id: string): Promise<Version> {
  const [record] = await selectVersionRecords(db, tenantId, { entityId, id });
  if (!record) throw notFound('version');
  return versionView(record);
}

/**
 * The versions of the entity (or of one kind), with their files' status; one query (two when
 * empty). Every one of them unless `limit` asks for fewer or they do not fit `maxBytes` (the bus
 * reply's budget, decision 0052): then `hasMore` is true and `nextCursor` continues. A request
 * without `limit` gets `maxVersionsPerEntity` (every version an entity may have).
 */
export async function listVersions(
  deps: { db: Kysely<CatalogDb>; maxVersionsPerEntity: number },
  call: CallContext,
  entityId: string,
  query: ListVersionsQuery,
  maxBytes: number,
): Promise<VersionList> {
  const after = query.after !== undefined ? versionCursor.decode(query.after) : undefined;
  const limit = query.limit ?? deps.maxVersionsPerEntity;
  return inTenantScope(deps.db, call.tenantId, async (db) => {
    const records = await selectVersionRecords(db, call.tenantId, { entityId, kind: query.kind, after, limit: limit + 1 });
    if (records.length === 0 && !(await findEntity(db, call.tenantId, entityId))) throw notFound('entity');
    const page = fitPage(records.map(versionView), limit, maxBytes);
    const last = page.items[page.items.length - 1];
    return {
      versions: page.items,
      nextCursor: page.hasMore && last ? versionCursor.encode({ kind: last.kind, id: last.id }) : null,
      hasMore: page.hasMore,
    };
  });
}

export async function getVersion(
  deps: { db: Kysely<CatalogDb> },
  call: CallContext,
  entityId: string,
  versionId: string,
): Promise<Version> {
  return inTenantScope(deps.db, call.tenantId, (db) => readVersion(db, call.tenantId, entityId, versionId));
}
