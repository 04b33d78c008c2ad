import { runPeriodically, startService, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { GatewayConfig } from './config.js';
import { startKeyReplica, type KeyReplica } from './domain/key-replica.js';
import type { KeyStore } from './domain/authenticate.js';
import { adminOperations } from './http/admin-operations.js';
import { catalogIntegrations } from './integration/catalog-integrations.js';
import { mountGateway } from './http/app.js';
import { appPage } from './http/app-page.js';
import { pageSessions, type PageSessions } from './http/app-session.js';
import { sessionCookie } from './http/session-cookie.js';
import { appSessions } from './domain/app-sessions.js';
import { pruneSessions } from './persistence/app-sessions.js';
import { docsPage } from './http/docs-page.js';
import { blobProxy } from './http/blob-proxy.js';
import { ipRateLimit } from './http/ip-rate-limit.js';
import { publicRouter } from './http/router.js';
import { announceKeyChange, followKeyChanges } from './messaging/key-changes.js';
import { announceOrganizationChange } from './messaging/organization-changes.js';
import { serveGatewayOperations } from './rpc/organization-products.js';
import { gatewayMigrations } from './migrations/index.js';
import { pruneKeyChanges } from './persistence/key-changes.js';
import { idempotencyStore } from './domain/idempotency-store.js';
import { findOrganization } from './persistence/organizations.js';
import type { GatewayDb } from './persistence/tables.js';

export interface GatewayHandle extends ServiceRuntime<GatewayDb> {
  /** The API keys in memory (decision 0070); null with `API_KEY_MAX_STALENESS_MS=0`. */
  keys: KeyReplica | null;
  /** The public listener's base URL and port. */
  url: string;
  port: number;
}

/** The public HTTP entry point: key auth, permissions, plans, limits, validation, routing over NATS. */
export async function startGateway(config: GatewayConfig, options: { logger?: Logger } = {}): Promise<GatewayHandle> {
  const settings = { config, schema: 'gateway', migrations: gatewayMigrations, logger: options.logger };
  return startService<GatewayDb, GatewayHandle>({ ...settings, moduleUrl: import.meta.url }, async (runtime) => {
    const db = runtime.database.db;
    const { keys, keysChanged } = await startKeys(runtime, config);
    await serveGatewayOperations(runtime, config.shutdownTimeoutMs);
    const rpc = { nc: runtime.nc, subjects: runtime.subjects, callContext: runtime.callContext };
    const blobs = blobProxy({
      rpc: { nc: runtime.nc, subjects: runtime.subjects, callContext: runtime.callContext, timeoutMs: config.assetDiscoveryTimeoutMs },
      assetHttpUrl: config.assetHttpUrl,
      upstream: config.upstream,
      uploads: config.uploads,
    });
    const keyStore = { pool: runtime.database.pool, replica: keys };
    const sessions = startPageSessions(runtime, config, keyStore);
    const router = publicRouter({
      keys: keyStore,
      pageSession: sessions.presentedBy,
      stream: blobs.download,
      rpc: {
        nc: runtime.nc,
        subjects: runtime.subjects,
        callContext: runtime.callContext,
        timeoutMs: config.rpcTimeoutMs,
        passJsonThrough: true,
      },
      longPollCeilingMs: config.http.idleTimeoutMs - 1000,
      adminToken: config.adminToken,
      bodyLimitBytes: config.bodyLimitBytes,
      bodyTimeoutMs: config.http.requestTimeoutMs,
      localOperations: adminOperations({
        db,
        keysChanged,
        integrations: catalogIntegrations({ ...rpc, timeoutMs: config.rpcTimeoutMs }),
        organizationChanged: (id) => announceOrganizationChange(runtime.nc, runtime.subjects, runtime.logger, id),
      }),
      idempotency: idempotencyStore(runtime, config),
      organizationExists: async (id) => (await findOrganization(db, id)) !== undefined,
    });
    // The public listener: no /metrics here (counters are for the internal network, decision 0053).
    // The page's session (`/app/session`, `/app/api/…`) before its static files, which answer 404 for any other path under /app.
    const pages = [docsPage(), sessions.middleware, appPage(config.appUploadOrigins)];
    const server = await runtime.listen((app) => mountGateway(app, router, ipRateLimit(config.ipRateLimit), blobs.uploads, pages), {
      accessLog: true,
      proxyHops: config.trustProxyHops,
      streamedBodies: true,
      metrics: false,
    });
    return Object.assign(runtime, { keys, url: server.url, port: server.port });
  });
}

/**
 * The API keys in memory (decision 0070) and the prune of their change log (0073); `keysChanged`
 * tells every replica, this one first, that a key or plan changed.
 */
async function startKeys(
  runtime: ServiceRuntime<GatewayDb>,
  config: GatewayConfig,
): Promise<{ keys: KeyReplica | null; keysChanged: () => Promise<void> }> {
  const { nc, subjects, logger } = runtime;
  const keys =
    config.apiKeyMaxStalenessMs > 0
      ? await startKeyReplica({
          pool: runtime.database.pool,
          logger,
          maxStalenessMs: config.apiKeyMaxStalenessMs,
          notices: (onNotice) => followKeyChanges(nc, subjects, onNotice),
        })
      : null;
  if (keys) runtime.onStop(() => keys.stop());
  runPeriodically(runtime, {
    name: 'API-key change log prune',
    intervalMs: Math.min(config.apiKeyChangesRetentionMs / 4, 300_000),
    run: () => pruneKeyChanges(runtime.database.pool, config.apiKeyChangesRetentionMs),
  });
  const keysChanged = async (): Promise<void> => {
    announceKeyChange(nc, subjects, logger);
    // A failed read leaves the replica not current: requests read keys from the database then.
    await keys?.sync().catch(() => undefined);
  };
  return { keys, keysChanged };
}

/** The library page's sessions (decision 0153) and the prune of those that ended. */
function startPageSessions(runtime: ServiceRuntime<GatewayDb>, config: GatewayConfig, keys: KeyStore): PageSessions {
  const { idleTimeoutMs: idleMs, maxAgeMs, perKey, secureCookie } = config.appSession;
  runPeriodically(runtime, {
    name: 'page session prune',
    intervalMs: Math.min(idleMs, 600_000),
    run: () => pruneSessions(runtime.database.pool, idleMs),
  });
  return pageSessions(appSessions({ keys, times: { idleMs, maxAgeMs }, perKey }), sessionCookie(secureCookie), idleMs);
}
