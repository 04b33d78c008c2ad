import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Assignment, AssetWithUpload, Entity, EntityType, UploadTarget, Version } from '@catalog/contracts';
import { assetConfig, startAssetService, type AssetServiceHandle } from '@catalog/asset';
import {
  AppError,
  callRpc,
  newId,
  readConfig,
  subjectsFor,
  type CallContext,
  type EventEnvelopeRow,
  type NatsConnection,
  type RpcReply,
  type RpcRequest,
} from '@catalog/platform';
import {
  createTestDatabase,
  serviceEnvironment,
  testBus,
  testCallContext,
  testLogger,
  uniqueNatsPrefix,
  untilBusSettled,
  type TestDatabase,
} from '@catalog/testing';
import { catalogConfig, startCatalogService, type AssetClient, type CatalogServiceHandle } from '../src/index.js';

/** A page of a keyset-paginated list, as the contracts' `Page(itemsName, item)` describes it. */
export type PageOf<K extends string, T> = { [P in K]: T[] } & { nextCursor: string | null; hasMore: boolean };
/** What listEntities answers. */
export type EntityPage = PageOf<'entities', Entity>;
/** What listAssignments answers. */
export type AssignmentPage = PageOf<'assignments', Assignment>;
/** What listEntityTypes answers. */
export interface EntityTypeList {
  entityTypes: EntityType[];
}
/** What createVersion answers for a `source.upload`: the version with its upload target. */
export type UploadedVersion = Version & { upload: UploadTarget };
/** What recordAssetState answers. */
export interface RecordedAssetState {
  analysesRequested: boolean;
}

/** A tenant calling as the gateway would for one API key. */
export interface Caller {
  tenantId: string;
  keyId: string;
  call(operation: string, request?: Partial<RpcRequest>): Promise<RpcReply>;
  /** Like `call`, but fails unless the reply is a success; returns the body. */
  ok<T = unknown>(operation: string, request?: Partial<RpcRequest>): Promise<T>;
}

export interface OutboxRow extends EventEnvelopeRow {
  seq: string;
  tx_id: string;
  tenant_id: string;
  published_at: Date | null;
}

export interface CatalogHarness {
  service: CatalogServiceHandle;
  /** The asset service, when the harness was started `withAssets`. */
  asset: AssetServiceHandle | null;
  natsPrefix: string;
  database: TestDatabase;
  /** Superuser connection to the test database (bypasses row-level security). */
  sql: pg.Client;
  /** A tenant's key; its permissions default to every catalog one (`catalog:api`, `catalog:analysis`). */
  tenant(options?: { permissions?: readonly string[] }): Caller;
  /** A caller of the asset service's NATS operations for the tenant of `caller`. */
  assets(caller: Caller): AssetCaller;
  outbox(filter?: { tenantId?: string; resourceId?: string; type?: string }): Promise<OutboxRow[]>;
  /**
   * Resolves once every event written so far is relayed and every consumer has handled it (and what
   * those recorded in answer): what a test waits for before asserting that nothing more happened.
   */
  settled(): Promise<void>;
  /**
   * The next `count` releaseAsset calls of the catalog fail as if the asset service did not answer
   * (503 service_unavailable) without reaching it; the asset service itself stays up.
   */
  failAssetReleases(count: number): void;
  /**
   * The next `count` attachAsset calls of the catalog time out (504 upstream_timeout) at once, and
   * reach the asset service only later: right after the catalog's next releaseAsset was answered.
   */
  answerAttachesLate(count: number): void;
  /** The answer of the catalog's next attachAsset (the call is made) is held back until released. */
  holdNextAttach(): HeldAnswer;
  /** The answer of the catalog's next releaseAsset (the call is made) is held back until released. */
  holdNextRelease(): HeldAnswer;
  stop(): Promise<void>;
}

/** An answer of the asset service held back from the catalog. */
export interface HeldAnswer {
  /** Resolves once the answer arrived and is being held. */
  held: Promise<void>;
  /** Hands the answer to the catalog. */
  release(): void;
}

interface Hold extends HeldAnswer {
  markHeld(): void;
  gate: Promise<void>;
}

function newHold(): Hold {
  let markHeld!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (markHeld = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { held, release, markHeld, gate };
}

/** Awaits `answer`, then, if a hold is queued, keeps it until the hold is released. */
async function maybeHeld<T>(holds: Hold[], answer: Promise<T>): Promise<T> {
  const value = await answer;
  const hold = holds.shift();
  if (hold) {
    hold.markHeld();
    await hold.gate;
  }
  return value;
}

export interface AssetCaller {
  call(operation: string, request?: Partial<RpcRequest>): Promise<RpcReply>;
  ok<T = unknown>(operation: string, request?: Partial<RpcRequest>): Promise<T>;
}

export interface HarnessOptions {
  /**
   * Also start the asset service (same database, own schema; same NATS prefix), whose outbox relay
   * publishes the asset events the catalog follows. Versions need it.
   */
  withAssets?: boolean;
  /** Extra environment for both services. */
  env?: Record<string, string>;
  /** A Postgres cluster of the file's own, for a test that holds a transaction open on purpose (decision 0157). */
  ownCluster?: boolean;
  /** How long the test's callers wait for an answer (default 10 s): writes of one entity take turns. */
  callTimeoutMs?: number;
}

/** Starts the catalog service on a database and NATS prefix of its own, with a NATS client to call it. */
export async function startHarness(label: string, options: HarnessOptions = {}): Promise<CatalogHarness> {
  const database = await createTestDatabase(label, { ownCluster: options.ownCluster ?? false });
  const natsPrefix = uniqueNatsPrefix(label);
  const blobDir = options.withAssets ? mkdtempSync(join(tmpdir(), 'catalog-test-blobs-')) : null;
  const env: Record<string, string> = {
    ...(await serviceEnvironment(database, ['catalog', 'asset'])),
    NATS_PREFIX: natsPrefix,
    CATALOG_HTTP_PORT: '0',
    ASSET_HTTP_PORT: '0',
    HTTP_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DB_POOL_SIZE: '10',
    ...(blobDir ? { BLOB_DIR: blobDir, BLOB_SIGNING_SECRET: randomBytes(32).toString('hex') } : {}),
    ...options.env,
  };
  const config = readConfig(catalogConfig, env);
  let failingReleases = 0;
  let lateAttaches = 0;
  let delayedAttach: (() => Promise<unknown>) | undefined;
  const attachHolds: Hold[] = [];
  const releaseHolds: Hold[] = [];
  const wrapAssetClient = (client: AssetClient): AssetClient => ({
    ...client,
    async attach(call, assetId, version) {
      if (lateAttaches > 0) {
        lateAttaches -= 1;
        delayedAttach = () => client.attach(call, assetId, version);
        throw new AppError(504, 'upstream_timeout', 'the asset service did not answer in time');
      }
      return maybeHeld(attachHolds, client.attach(call, assetId, version));
    },
    async release(call, assetId, versionId) {
      if (failingReleases > 0) {
        failingReleases -= 1;
        throw new AppError(503, 'service_unavailable', 'the asset service is not available');
      }
      try {
        return await maybeHeld(releaseHolds, client.release(call, assetId, versionId));
      } finally {
        const late = delayedAttach;
        delayedAttach = undefined;
        await late?.();
      }
    },
  });
  let service: CatalogServiceHandle | undefined;
  let asset: AssetServiceHandle | undefined;
  let client: NatsConnection | undefined;
  const sql = new pg.Client({ connectionString: database.url });
  try {
    service = await startCatalogService(config, { logger: testLogger('catalog'), wrapAssetClient });
    if (options.withAssets) asset = await startAssetService(readConfig(assetConfig, env), { logger: testLogger('asset') });
    client = await testBus(`${label}-client`);
    await sql.connect();
  } catch (error) {
    await asset?.stop();
    await service?.stop();
    await client?.drain().catch(() => undefined);
    await sql.end().catch(() => undefined);
    await database.drop();
    if (blobDir) rmSync(blobDir, { recursive: true, force: true });
    throw error;
  }
  const rpc = { nc: client, subjects: subjectsFor(natsPrefix), callContext: testCallContext(), timeoutMs: options.callTimeoutMs };
  const started = service;
  const nc = client;

  const caller = (service: string, context: () => CallContext) => {
    const call = (operation: string, request: Partial<RpcRequest> = {}) =>
      callRpc(rpc, service, operation, { params: request.params ?? {}, query: request.query ?? {}, body: request.body ?? null }, context());
    return {
      call,
      async ok<T = unknown>(operation: string, request?: Partial<RpcRequest>): Promise<T> {
        const reply = await call(operation, request);
        if (!reply.ok) throw new Error(`${operation} failed: ${JSON.stringify(reply.error)}`);
        return reply.body as T;
      },
    };
  };

  return {
    service: started,
    asset: asset ?? null,
    natsPrefix,
    database,
    sql,
    assets(tenant) {
      return caller('asset', () => ({
        tenantId: tenant.tenantId,
        keyId: tenant.keyId,
        sourceSystem: `public-api:${tenant.keyId}`,
        requestId: newId(),
      }));
    },
    tenant(options = {}) {
      const tenantId = newId();
      const keyId = newId();
      const permissions = options.permissions ?? ['catalog:api', 'catalog:analysis'];
      const context = (): CallContext => ({ tenantId, keyId, permissions, sourceSystem: `public-api:${keyId}`, requestId: newId() });
      return { tenantId, keyId, ...caller('catalog', context) };
    },
    settled() {
      const schemas = asset ? ['catalog', 'asset'] : ['catalog'];
      const unpublished = async () => {
        const counts = await Promise.all(
          schemas.map((schema) => sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.outbox where published_at is null`)),
        );
        return counts.reduce((sum, { rows }) => sum + rows[0]!.n, 0);
      };
      return untilBusSettled(nc, rpc.subjects, unpublished);
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
    failAssetReleases(count) {
      failingReleases = count;
    },
    answerAttachesLate(count) {
      lateAttaches = count;
    },
    holdNextAttach() {
      const hold = newHold();
      attachHolds.push(hold);
      return hold;
    },
    holdNextRelease() {
      const hold = newHold();
      releaseHolds.push(hold);
      return hold;
    },
    async stop() {
      await nc.drain().catch(() => undefined);
      await asset?.stop();
      await started.stop();
      await sql.end().catch(() => undefined);
      await database.drop();
      if (blobDir) rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

/** The error part of a failed reply, or a test failure when the call succeeded. */
export function errorOf(reply: RpcReply): { status: number; code: string; message: string; details?: Record<string, unknown> } {
  if (reply.ok) throw new Error(`expected an error, got ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.error;
}

/**
 * PUTs bytes to a signed upload target. The URL starts with the public base (the gateway, which
 * passes `/uploads/…` through unchanged); without a gateway the same path goes to the asset
 * service's listener directly.
 */
export async function uploadBytes(
  h: CatalogHarness,
  upload: { url: string; headers: Record<string, string> },
  bytes: Uint8Array,
): Promise<number> {
  const target = new URL(upload.url);
  const listener = new URL(h.asset!.listenerUrl);
  target.protocol = listener.protocol;
  target.host = listener.host;
  const response = await fetch(target, { method: 'PUT', headers: upload.headers, body: bytes });
  await response.arrayBuffer();
  return response.status;
}

export interface UploadVersionOptions {
  filename?: string;
  contentType?: string;
  size?: number;
  label?: string;
  versionType?: string;
  kind?: string;
  isPrimary?: boolean;
}

/** POST createVersion with a `source.upload` (defaults: an AUDIO radio edit, audio/wav). */
export function addUploadVersion(caller: Caller, entityId: string, options: UploadVersionOptions = {}): Promise<RpcReply> {
  const {
    filename = 'edit.wav',
    contentType = 'audio/wav',
    size,
    label = 'Radio edit',
    versionType = 'radio_edit',
    kind,
    isPrimary,
  } = options;
  return caller.call('createVersion', {
    params: { id: entityId },
    body: {
      source: { upload: { filename, contentType, ...(size !== undefined ? { size } : {}) } },
      label,
      versionType,
      ...(kind !== undefined ? { kind } : {}),
      ...(isPrimary !== undefined ? { isPrimary } : {}),
    },
  });
}

/** A tenant with an entity and an ONLINE standalone asset of the tenant (uploaded and confirmed). */
export async function entityAndStandaloneAsset(
  h: CatalogHarness,
  title: string,
  wav: Uint8Array,
): Promise<{ a: Caller; entityId: string; assetId: string }> {
  const a = h.tenant();
  const entity = await a.ok<Entity>('createEntity', { body: { type: 'song', title } });
  const standalone = await h.assets(a).ok<AssetWithUpload>('createAsset', {
    body: { retention: 'standalone', upload: { filename: 'jingle.wav', contentType: 'audio/wav' } },
  });
  expect(await uploadBytes(h, standalone.upload, wav)).toBeLessThan(300);
  await h.assets(a).ok('confirmAsset', { params: { id: standalone.assetId } });
  return { a, entityId: entity.id, assetId: standalone.assetId };
}

/** POST createVersion from an existing asset (`source.assetId`), a station intro. */
export const addVersionOf = (a: Caller, entityId: string, assetId: string, label: string): Promise<RpcReply> =>
  a.call('createVersion', { params: { id: entityId }, body: { source: { assetId }, label, versionType: 'station_intro' } });

/** The version the asset service records the asset as the file of (null: none). */
export const versionOfAsset = async (h: CatalogHarness, assetId: string): Promise<string | null> =>
  (await h.sql.query('select version_id from asset.assets where id = $1', [assetId])).rows[0]?.version_id ?? null;

/** The attach intents of an asset. */
export const intentsOf = async (
  h: CatalogHarness,
  assetId: string,
): Promise<Array<{ version_id: string; tenant_id: string; source_system: string }>> =>
  (await h.sql.query('select version_id, tenant_id, source_system from catalog.attach_intents where asset_id = $1', [assetId])).rows;

/** The asset.released events of an asset: the version released from and the source system. */
export const releasedEvents = async (h: CatalogHarness, assetId: string): Promise<Array<{ version_id: string; source_system: string }>> =>
  (
    await h.sql.query(
      "select data->>'versionId' as version_id, source_system from asset.outbox where resource_id = $1 and type = 'asset.released'",
      [assetId],
    )
  ).rows;
