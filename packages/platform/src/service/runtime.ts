import type Koa from 'koa';
import { operationsOf, type ServiceName } from '@catalog/contracts';
import { connectBus, pingBus, type NatsConnection } from '../bus/connect.js';
import { callContextKeys, type CallContextKeys } from '../bus/context.js';
import { serveRpc, type RpcHandler, type RpcServer } from '../bus/rpc.js';
import { subjectsFor, type Subjects } from '../bus/subjects.js';
import type { CommonConfig } from '../config/index.js';
import { connectionErrorSummary, createDatabase, pingDatabase, type Database } from '../db/database.js';
import { migrateSchema, type Migrations } from '../db/migrate.js';
import { assertSafeDatabaseRole } from '../db/roles.js';
import { createHttpApp, type HttpState } from '../http/app.js';
import { listen, type RunningServer } from '../http/server.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { processMetrics } from '../observability/metrics.js';
import { startOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from '../outbox/relay.js';
import type { Operation } from '../operations/define-operation.js';

export interface ServiceRuntimeSettings {
  config: CommonConfig;
  /** Postgres schema the service owns; its working role is `<schema>_app`. */
  schema: string;
  migrations: Migrations;
  version: string;
  /** Apply migrations at start (the default); production may run `npm run migrate` instead. */
  migrate?: boolean;
  logger?: Logger;
  /**
   * The service records events in `<schema>.outbox`: run its relay to the events stream (started
   * once NATS is connected, stopped first). `true` takes the default relay settings.
   */
  outbox?: boolean | OutboxRelayOptions;
}

export interface ListenerOptions {
  /** Log one line per request (gateway: yes; internal listeners: no). */
  accessLog?: boolean;
  /** Proxies in front that append to X-Forwarded-For (see HttpAppSettings.proxyHops). */
  proxyHops?: number;
  /** The listener takes streamed uploads (see ListenOptions.streamedBodies). */
  streamedBodies?: boolean;
  /** A check of the service's own, besides Postgres and NATS, that `/readyz` also needs to pass. */
  ready?: () => Promise<void>;
  /** Serve the process's counters at `/metrics` (default true; the public gateway says false). */
  metrics?: boolean;
}

export interface ServiceRuntime<DB> {
  name: string;
  logger: Logger;
  database: Database<DB>;
  nc: NatsConnection;
  subjects: Subjects;
  /** Signs the contexts of the calls this service makes (`RpcCallSettings.callContext`). */
  callContext: CallContextKeys;
  /**
   * Serves the service's operations on NATS: exactly the operations the table gives this service
   * (`operationsOf`), each once; anything else is an error at start.
   */
  serve(operations: readonly Operation[]): Promise<RpcServer>;
  /**
   * Starts the service's HTTP listener (health checks, `/metrics` unless `metrics: false`, plus
   * whatever `extend` mounts; `/readyz` also needs `options.ready` to pass).
   */
  listen(extend?: (app: Koa<HttpState>) => void, options?: ListenerOptions): Promise<RunningServer>;
  /** The HTTP listener once `listen` has started it. */
  readonly http: RunningServer | null;
  /** Registers work to stop on shutdown, run in reverse order before NATS and Postgres close. */
  onStop(stop: () => Promise<void>): void;
  stop(): Promise<void>;
}

/**
 * The parts every service starts the same way: logger, migrations, Postgres pool (as the app
 * role, refused when that role could bypass row-level security), NATS connection (as the
 * service's user), RPC endpoints (calls with a verified context only), HTTP listener with
 * `/healthz` and `/readyz`, and an orderly stop (HTTP drains, RPC endpoints stop once the calls
 * they took are answered (decision 0109), NATS drains, the pool closes).
 */
/**
 * The handlers of `operations` by operation id, after checking that they are exactly the table's
 * operations of `service`: a missing one would leave its callers without an answer, a foreign one
 * would answer on a subject that is not the service's.
 */
function operationHandlers(service: string, operations: readonly Operation[]): Record<string, RpcHandler> {
  const expected = operationsOf(service as ServiceName).map((operation) => operation.operationId);
  const served = operations.map((operation) => operation.definition.operationId);
  const foreign = operations
    .filter((operation) => operation.definition.service !== service)
    .map((operation) => operation.definition.operationId);
  const missing = expected.filter((operationId) => !served.includes(operationId));
  const twice = served.filter((operationId, index) => served.indexOf(operationId) !== index);
  if (foreign.length > 0 || missing.length > 0 || twice.length > 0) {
    throw new Error(
      `the ${service} service must serve its operations of the table once each (not: ${foreign.join(', ')}; missing: ${missing.join(', ')}; twice: ${twice.join(', ')})`,
    );
  }
  return Object.fromEntries(operations.map((operation) => [operation.definition.operationId, operation.handle]));
}

export async function startServiceRuntime<DB>(settings: ServiceRuntimeSettings): Promise<ServiceRuntime<DB>> {
  const { config } = settings;
  const logger = settings.logger ?? createLogger({ service: config.serviceName, level: config.logLevel });
  const database = await openServiceDatabase<DB>(settings, logger);
  const nc = await connectBus({
    url: config.natsUrl,
    name: config.serviceName,
    logger,
    user: config.natsUser,
    password: config.natsPassword,
    streamReplicas: config.jetstreamReplicas,
  }).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  const subjects = subjectsFor(config.natsPrefix);
  const relay: OutboxRelay | null = settings.outbox
    ? startOutboxRelay({
        ...(typeof settings.outbox === 'object' ? settings.outbox : {}),
        schema: settings.schema,
        connectionString: config.databaseUrl,
        role: `${settings.schema}_app`,
        nc,
        subjects,
        logger,
      })
    : null;
  return assembleRuntime<DB>({
    settings,
    logger,
    database,
    nc,
    subjects,
    relay,
    callContext: callContextKeys(config.callContextSecret, config.callContextTtlMs),
  });
}

/**
 * Migrates the service's schema (as the schema owner), then opens the pool of the service's own
 * role, refusing (and closing it) when that role could bypass row-level security (decision 0057).
 */
async function openServiceDatabase<DB>(settings: ServiceRuntimeSettings, logger: Logger): Promise<Database<DB>> {
  const { config } = settings;
  if (settings.migrate ?? config.migrateOnStart) {
    await migrateSchema({
      url: config.migrationDatabaseUrl,
      schema: settings.schema,
      role: `${settings.schema}_app`,
      migrations: settings.migrations,
      logger,
    });
  }
  const database = createDatabase<DB>({
    url: config.databaseUrl,
    schema: settings.schema,
    // The service logs in as its own role. Only when allowed to log in as a privileged one
    // (development) does it switch to its role, so that row-level security still applies.
    ...(config.dbAllowPrivilegedRole ? { role: `${settings.schema}_app` } : {}),
    poolSize: config.dbPoolSize,
    preparedStatementsPerConnection: config.dbPreparedStatementsPerConnection,
    applicationName: config.serviceName,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    idleInTransactionTimeoutMs: config.dbIdleInTransactionTimeoutMs,
    onIdleConnectionError: (error) =>
      logger.warn({ pool: settings.schema, error: connectionErrorSummary(error) }, 'database connection lost'),
  });
  try {
    await assertSafeDatabaseRole(database.pool, settings.schema, { allowPrivileged: config.dbAllowPrivilegedRole, logger });
    return database;
  } catch (error) {
    await database.close();
    throw error;
  }
}

interface RuntimeParts<DB> {
  settings: ServiceRuntimeSettings;
  logger: Logger;
  database: Database<DB>;
  nc: NatsConnection;
  subjects: Subjects;
  relay: OutboxRelay | null;
  callContext: CallContextKeys;
}

/** The runtime of started parts: RPC endpoints and the HTTP listener on demand, and the orderly stop. */
function assembleRuntime<DB>({ settings, logger, database, nc, subjects, relay, callContext }: RuntimeParts<DB>): ServiceRuntime<DB> {
  const { config } = settings;
  const stops: Array<() => Promise<void>> = [];
  let stopped = false;
  let http: RunningServer | null = null;
  return {
    name: config.serviceName,
    logger,
    database,
    nc,
    subjects,
    callContext,
    get http() {
      return http;
    },
    async serve(operations) {
      const handlers = operationHandlers(config.serviceName, operations);
      const service = await serveRpc({
        nc,
        subjects,
        callContext,
        service: config.serviceName,
        version: settings.version,
        handlers,
        logger,
      });
      stops.push(() => service.stop(config.shutdownTimeoutMs));
      return service;
    },
    async listen(extend, options) {
      const server = await listenHttp({ settings, logger, database, nc }, extend, options);
      stops.push(() => server.close(config.shutdownTimeoutMs));
      http = server;
      return server;
    },
    onStop(stop) {
      stops.push(stop);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await relay?.stop().catch((error: unknown) => logger.error({ err: error }, 'stopping the outbox relay failed'));
      for (const stop of [...stops].reverse()) {
        await stop().catch((error: unknown) => logger.error({ err: error }, 'stop step failed'));
      }
      await nc.drain().catch(() => undefined);
      await database.close();
      logger.info('stopped');
    },
  };
}

/** The service's HTTP listener: health, readiness (database, bus, `options.ready`), metrics, `extend`'s routes. */
async function listenHttp<DB>(
  { settings, logger, database, nc }: Pick<RuntimeParts<DB>, 'settings' | 'logger' | 'database' | 'nc'>,
  extend?: (app: Koa<HttpState>) => void,
  options?: ListenerOptions,
): Promise<RunningServer> {
  const { config } = settings;
  const app = createHttpApp({
    logger,
    ready: async () => {
      await Promise.all([pingDatabase(database.db as never), pingBus(nc), options?.ready?.()]);
    },
    accessLog: options?.accessLog ?? false,
    proxyHops: options?.proxyHops ?? 0,
    bodyReads: { windowMs: config.http.bodyReadTimeoutMs, minBytesPerSecond: config.http.bodyMinBytesPerSecond },
    ...(options?.metrics === false ? {} : { metrics: processMetrics }),
  });
  extend?.(app);
  const server = await listen(app, config.httpPort, config.httpHost, {
    timeouts: config.http,
    streamedBodies: options?.streamedBodies ?? false,
  });
  logger.info({ address: server.address, port: server.port }, 'http listening');
  return server;
}
