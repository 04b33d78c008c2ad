import pg from 'pg';
import { callRpc, connectBus, newId, readConfig, subjectsFor, type CallContext, type NatsConnection, type RpcReply, type RpcRequest, type ServiceRuntime } from '@catalog/platform';
import { createTestDatabase, testInfrastructure, testLogger, uniqueNatsPrefix, type TestDatabase } from '@catalog/platform/testing';
import { readCatalogConfig, startCatalogService, type CatalogDb } from '../src/index.js';

/** A tenant calling as the gateway would for one API key. */
export interface Caller {
  tenantId: string;
  keyId: string;
  call(operation: string, request?: Partial<RpcRequest>): Promise<RpcReply>;
  /** Like `call`, but fails unless the reply is a success; returns the body. */
  ok<T = any>(operation: string, request?: Partial<RpcRequest>): Promise<T>;
}

export interface OutboxRow {
  seq: string;
  id: string;
  tx_id: string;
  tenant_id: string;
  product: string;
  type: string;
  resource_kind: string;
  resource_id: string | null;
  dmrn: string | null;
  source_system: string;
  batch_id: string;
  schema_version: number;
  data: Record<string, unknown>;
  occurred_at: Date;
  published_at: Date | null;
}

export interface CatalogHarness {
  service: ServiceRuntime<CatalogDb>;
  database: TestDatabase;
  /** Superuser connection to the test database (bypasses row-level security). */
  sql: pg.Client;
  tenant(): Caller;
  outbox(filter?: { tenantId?: string; resourceId?: string; type?: string }): Promise<OutboxRow[]>;
  stop(): Promise<void>;
}

/** Starts the catalog service on a database and NATS prefix of its own, with a NATS client to call it. */
export async function startHarness(label: string): Promise<CatalogHarness> {
  const { natsUrl } = testInfrastructure();
  const database = await createTestDatabase(label);
  const natsPrefix = uniqueNatsPrefix(label);
  const config = readConfig(readCatalogConfig, {
    DATABASE_URL: database.url,
    NATS_URL: natsUrl,
    NATS_PREFIX: natsPrefix,
    CATALOG_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  });
  let service: ServiceRuntime<CatalogDb> | undefined;
  let client: NatsConnection | undefined;
  const sql = new pg.Client({ connectionString: database.url });
  try {
    service = await startCatalogService(config, { logger: testLogger('catalog') });
    client = await connectBus({ url: natsUrl, name: `${label}-client`, logger: testLogger('client') });
    await sql.connect();
  } catch (error) {
    await service?.stop();
    await client?.drain().catch(() => undefined);
    await sql.end().catch(() => undefined);
    await database.drop();
    throw error;
  }
  const rpc = { nc: client, subjects: subjectsFor(natsPrefix) };
  const started = service;
  const nc = client;

  return {
    service: started,
    database,
    sql,
    tenant() {
      const tenantId = newId();
      const keyId = newId();
      const context = (): CallContext => ({ tenantId, keyId, sourceSystem: `public-api:${keyId}`, requestId: newId() });
      const call = (operation: string, request: Partial<RpcRequest> = {}) =>
        callRpc(rpc, 'catalog', operation, { params: request.params ?? {}, query: request.query ?? {}, body: request.body ?? null }, context());
      return {
        tenantId,
        keyId,
        call,
        async ok(operation, request) {
          const reply = await call(operation, request);
          if (!reply.ok) throw new Error(`${operation} failed: ${JSON.stringify(reply.error)}`);
          return reply.body as any;
        },
      };
    },
    async outbox(filter = {}) {
      const conditions: string[] = [];
      const values: unknown[] = [];
      if (filter.tenantId) conditions.push(`tenant_id = $${values.push(filter.tenantId)}`);
      if (filter.resourceId) conditions.push(`resource_id = $${values.push(filter.resourceId)}`);
      if (filter.type) conditions.push(`type = $${values.push(filter.type)}`);
      const where = conditions.length > 0 ? `where ${conditions.join(' and ')}` : '';
      const result = await sql.query<OutboxRow>(`select * from catalog.outbox ${where} order by tx_id, seq`, values);
      return result.rows;
    },
    async stop() {
      await nc.drain().catch(() => undefined);
      await started.stop();
      await sql.end().catch(() => undefined);
      await database.drop();
    },
  };
}

/** The error part of a failed reply, or a test failure when the call succeeded. */
export function errorOf(reply: RpcReply): { status: number; code: string; message: string; details?: Record<string, unknown> } {
  if (reply.ok) throw new Error(`expected an error, got ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.error;
}
