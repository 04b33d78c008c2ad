import { READ_ENTITIES_MAX, type Assignment, type EntitiesRead, type Entity, type Relation, type Version } from '@catalog/contracts';
import { callRpc, newId, NO_TENANT, replyValue, type CallContext, type RpcCallSettings } from '@catalog/platform';

/**
 * What the library reads from the catalog over the bus (rule 1 of part 6: events are small, the
 * state is read from its owner), acting for one tenant as the library service.
 */
export interface CatalogReader {
  /** The entities the tenant has of these ids (a deleted one is absent), by id. */
  entities(tenantId: string, entityIds: readonly string[]): Promise<Map<string, Entity>>;
  /** Every version of the entity (all pages). */
  versions(tenantId: string, entityId: string): Promise<Version[]>;
  /** The tenants that have had entities, a page at a time (internal `listEntityTenants`). */
  tenantPage(after: string | null): Promise<{ tenants: string[]; nextCursor: string | null }>;
  /** The tenant's entity ids after `after`, in the catalog's listing order, a page at a time. */
  entityPage(tenantId: string, after: string | null): Promise<{ ids: string[]; nextCursor: string | null }>;
  /** The relations the entity is the source of, and its symmetric ones (all pages; none for a deleted entity). */
  relations(tenantId: string, entityId: string): Promise<Relation[]>;
  /** The tenant's integration ids after `after`, oldest first, a page at a time (`listIntegrations`). */
  integrationPage(tenantId: string, after: string | null): Promise<{ ids: string[]; nextCursor: string | null }>;
  /** A page of an integration's assignments (`listAssignments`); none for an integration deleted meanwhile. */
  assignmentPage(
    tenantId: string,
    integrationId: string,
    after: string | null,
  ): Promise<{ assignments: Assignment[]; nextCursor: string | null }>;
}

export function catalogReader(rpc: RpcCallSettings): CatalogReader {
  const call = (tenantId: string): CallContext => ({ tenantId, keyId: null, sourceSystem: 'library', requestId: newId() });
  return {
    async entities(tenantId, entityIds) {
      const found = new Map<string, Entity>();
      let asked = [...new Set(entityIds)];
      while (asked.length > 0) {
        const ids = asked.slice(0, READ_ENTITIES_MAX);
        const body = { ids };
        const page = replyValue<EntitiesRead>(
          await callRpc(rpc, 'catalog', 'readEntities', { params: {}, query: {}, body }, call(tenantId)),
        );
        for (const entity of page.entities) found.set(entity.id, entity);
        // Left out of both lists: the answer would not have fit the bus; asked again.
        const answered = new Set([...page.missing, ...page.entities.map((e) => e.id)]);
        if (!ids.some((id) => answered.has(id))) throw new Error('the catalog answered readEntities with none of the entities asked');
        asked = [...ids.filter((id) => !answered.has(id)), ...asked.slice(READ_ENTITIES_MAX)];
      }
      return found;
    },
    versions: (tenantId, entityId) => everyPageOf<Version>(rpc, () => call(tenantId), 'listVersions', entityId, 'versions', {}),
    async tenantPage(after) {
      const query: Record<string, string | number> = { limit: 500, ...(after === null ? {} : { after }) };
      const reply = await callRpc(rpc, 'catalog', 'listEntityTenants', { params: {}, query, body: null }, call(NO_TENANT));
      return replyValue<{ tenants: string[]; nextCursor: string | null }>(reply);
    },
    async entityPage(tenantId, after) {
      const query: Record<string, string | number> = { limit: 200, ...(after === null ? {} : { after }) };
      const reply = await callRpc(rpc, 'catalog', 'listEntities', { params: {}, query, body: null }, call(tenantId));
      const page = replyValue<{ entities: Entity[]; nextCursor: string | null }>(reply);
      return { ids: page.entities.map((e) => e.id), nextCursor: page.nextCursor };
    },
    relations: (tenantId, entityId) =>
      everyPageOf<Relation>(rpc, () => call(tenantId), 'listRelations', entityId, 'relations', { direction: 'outgoing', limit: 200 }),
    integrationPage: (tenantId, after) => integrationPage(rpc, call(tenantId), after),
    assignmentPage: (tenantId, integrationId, after) => assignmentPage(rpc, call(tenantId), integrationId, after),
  };
}

/**
 * Every item of an entity's listing (`operation` on the entity `entityId`), page after page, each
 * page its own call (`call()`); none once the entity is deleted (404).
 */
async function everyPageOf<T>(
  rpc: RpcCallSettings,
  call: () => CallContext,
  operation: string,
  entityId: string,
  itemsName: string,
  query: Record<string, string | number>,
): Promise<T[]> {
  const all: T[] = [];
  let after: string | null = null;
  do {
    const reply = await callRpc(
      rpc,
      'catalog',
      operation,
      { params: { id: entityId }, query: { ...query, ...(after === null ? {} : { after }) }, body: null },
      call(),
    );
    if (!reply.ok && reply.error.status === 404) return [];
    const page = replyValue<Record<string, unknown> & { nextCursor: string | null }>(reply);
    all.push(...(page[itemsName] as T[]));
    after = page.nextCursor;
  } while (after !== null);
  return all;
}

/** A page of the tenant's integrations (`listIntegrations`), their ids. */
async function integrationPage(rpc: RpcCallSettings, call: CallContext, after: string | null) {
  const query: Record<string, string | number> = { limit: 100, ...(after === null ? {} : { after }) };
  const reply = await callRpc(rpc, 'catalog', 'listIntegrations', { params: {}, query, body: null }, call);
  const page = replyValue<{ integrations: Array<{ id: string }>; nextCursor: string | null }>(reply);
  return { ids: page.integrations.map((i) => i.id), nextCursor: page.nextCursor };
}

/** A page of an integration's assignments (`listAssignments`); none once the integration is deleted (404). */
async function assignmentPage(rpc: RpcCallSettings, call: CallContext, integrationId: string, after: string | null) {
  const query: Record<string, string | number> = { limit: 500, ...(after === null ? {} : { after }) };
  const reply = await callRpc(rpc, 'catalog', 'listAssignments', { params: { id: integrationId }, query, body: null }, call);
  if (!reply.ok && reply.error.status === 404) return { assignments: [], nextCursor: null };
  return replyValue<{ assignments: Assignment[]; nextCursor: string | null }>(reply);
}
