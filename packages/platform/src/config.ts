import { readHttpTimeouts, type HttpTimeouts } from './http/timeouts.js';

/**
 * Configuration from the environment, validated once at start-up. Every problem is collected and
 * reported together, naming the variable, so a bad deployment fails with one clear message.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export interface EnvReader {
  string(name: string, fallback?: string): string;
  optionalString(name: string): string | undefined;
  int(name: string, fallback?: number, bounds?: { min?: number; max?: number }): number;
  bool(name: string, fallback?: boolean): boolean;
  url(name: string, fallback?: string, protocols?: string[]): string;
  oneOf<T extends string>(name: string, values: readonly T[], fallback?: T): T;
  secret(name: string, fallback?: string, minLength?: number): string;
}

/** Runs `build` with a reader over `env`; throws one ConfigError listing every bad variable. */
export function readConfig<T>(build: (env: EnvReader) => T, env: Env = process.env): T {
  const problems: string[] = [];
  const raw = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const missing = (name: string): void => {
    problems.push(`${name} is required but not set`);
  };
  const reader: EnvReader = {
    string(name, fallback) {
      const value = raw(name) ?? fallback;
      if (value === undefined) {
        missing(name);
        return '';
      }
      return value;
    },
    optionalString(name) {
      return raw(name);
    },
    int(name, fallback, bounds) {
      const value = raw(name);
      if (value === undefined) {
        if (fallback === undefined) missing(name);
        return fallback ?? 0;
      }
      if (!/^-?\d+$/.test(value)) {
        problems.push(`${name} must be an integer, got "${value}"`);
        return fallback ?? 0;
      }
      const parsed = Number(value);
      if ((bounds?.min !== undefined && parsed < bounds.min) || (bounds?.max !== undefined && parsed > bounds.max)) {
        problems.push(`${name} must be between ${bounds?.min ?? '-inf'} and ${bounds?.max ?? 'inf'}, got ${parsed}`);
      }
      return parsed;
    },
    bool(name, fallback) {
      const value = raw(name);
      if (value === undefined) {
        if (fallback === undefined) missing(name);
        return fallback ?? false;
      }
      if (['1', 'true', 'yes', 'on'].includes(value.toLowerCase())) return true;
      if (['0', 'false', 'no', 'off'].includes(value.toLowerCase())) return false;
      problems.push(`${name} must be a boolean (true/false), got "${value}"`);
      return fallback ?? false;
    },
    url(name, fallback, protocols) {
      const value = raw(name) ?? fallback;
      if (value === undefined) {
        missing(name);
        return '';
      }
      try {
        const parsed = new URL(value);
        if (protocols && !protocols.includes(parsed.protocol.replace(/:$/, ''))) {
          problems.push(`${name} must use one of ${protocols.join(', ')}, got "${parsed.protocol}"`);
        }
      } catch {
        problems.push(`${name} must be a URL`);
      }
      return value;
    },
    oneOf(name, values, fallback) {
      const value = raw(name) ?? fallback;
      if (value === undefined) {
        missing(name);
        return values[0] as (typeof values)[number];
      }
      if (!(values as readonly string[]).includes(value)) {
        problems.push(`${name} must be one of ${values.join(', ')}, got "${value}"`);
      }
      return value as (typeof values)[number];
    },
    secret(name, fallback, minLength = 16) {
      const value = raw(name) ?? fallback;
      if (value === undefined) {
        missing(name);
        return '';
      }
      if (value.length < minLength) problems.push(`${name} must be at least ${minLength} characters`);
      return value;
    },
  };
  const config = build(reader);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Settings every service shares. */
export interface CommonConfig {
  serviceName: string;
  logLevel: string;
  /** The service's own login role (decision 0057): `<SERVICE>_DATABASE_URL`, else `DATABASE_URL`. */
  databaseUrl: string;
  /** The role that owns the schemas and runs migrations. */
  migrationDatabaseUrl: string;
  dbPoolSize: number;
  /** Parameterised statements each connection prepares (outside transactions); 0: none. */
  dbPreparedStatementsPerConnection: number;
  /** Postgres cancels a statement of the service's pool running longer than this; 0: never. */
  dbStatementTimeoutMs: number;
  /** Postgres ends a session of the service's pool idle inside a transaction this long; 0: never. */
  dbIdleInTransactionTimeoutMs: number;
  /**
   * Start even when the login role is a superuser, may bypass row-level security or owns the
   * service's tables (development only; never set by the chart).
   */
  dbAllowPrivilegedRole: boolean;
  natsUrl: string;
  natsPrefix: string;
  /** The service's NATS user (decision 0055), unset on a server without authorization. */
  natsUser: string | undefined;
  natsPassword: string | undefined;
  /** Key of the signed call contexts, the same on every service (decision 0056). */
  callContextSecret: string;
  callContextTtlMs: number;
  httpHost: string;
  httpPort: number;
  shutdownTimeoutMs: number;
  /** Apply the service's migrations when it starts (off when a deployment job runs them). */
  migrateOnStart: boolean;
  /** Timeouts of the service's HTTP listener (decision 0050). */
  http: HttpTimeouts;
}

/**
 * The NATS credentials of `serviceName`: `<SERVICE>_NATS_PASSWORD` (the user is the service's name
 * unless `<SERVICE>_NATS_USER` says otherwise), else `NATS_USER`/`NATS_PASSWORD`. The per-service
 * variables let one environment (a test harness, `npm start`) hold every service's credentials.
 */
function readNatsCredentials(env: EnvReader, serviceName: string): { natsUser: string | undefined; natsPassword: string | undefined } {
  const ownPassword = env.optionalString(`${serviceName.toUpperCase()}_NATS_PASSWORD`);
  if (ownPassword !== undefined) {
    return { natsUser: env.optionalString(`${serviceName.toUpperCase()}_NATS_USER`) ?? serviceName, natsPassword: ownPassword };
  }
  const natsUser = env.optionalString('NATS_USER');
  const natsPassword = env.optionalString('NATS_PASSWORD');
  if (natsPassword !== undefined && natsUser === undefined) env.string('NATS_USER'); // reported as missing
  return { natsUser, natsPassword };
}

export function readCommonConfig(env: EnvReader, serviceName: string, defaultPort: number): CommonConfig {
  const postgres = ['postgres', 'postgresql'];
  const ownDatabaseUrl = env.optionalString(`${serviceName.toUpperCase()}_DATABASE_URL`);
  const databaseUrl =
    ownDatabaseUrl === undefined
      ? env.url('DATABASE_URL', undefined, postgres)
      : env.url(`${serviceName.toUpperCase()}_DATABASE_URL`, undefined, postgres);
  return {
    serviceName,
    logLevel: env.oneOf('LOG_LEVEL', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const, 'info'),
    databaseUrl,
    migrationDatabaseUrl:
      env.optionalString('MIGRATION_DATABASE_URL') === undefined ? databaseUrl : env.url('MIGRATION_DATABASE_URL', undefined, postgres),
    dbPoolSize: env.int('DB_POOL_SIZE', 10, { min: 1, max: 200 }),
    dbPreparedStatementsPerConnection: env.int('DB_PREPARED_STATEMENTS_PER_CONNECTION', 200, { min: 0, max: 10_000 }),
    dbStatementTimeoutMs: env.int('DB_STATEMENT_TIMEOUT_MS', 30_000, { min: 0 }),
    dbIdleInTransactionTimeoutMs: env.int('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000, { min: 0 }),
    dbAllowPrivilegedRole: env.bool('DB_ALLOW_PRIVILEGED_ROLE', false),
    natsUrl: env.string('NATS_URL', 'nats://127.0.0.1:4222'),
    natsPrefix: env.string('NATS_PREFIX', 'cs'),
    ...readNatsCredentials(env, serviceName),
    callContextSecret: env.secret('CALL_CONTEXT_SECRET', undefined, 32),
    callContextTtlMs: env.int('CALL_CONTEXT_TTL_MS', 30_000, { min: 1_000, max: 600_000 }),
    httpHost: env.string('HTTP_HOST', '0.0.0.0'),
    httpPort: env.int(`${serviceName.toUpperCase()}_HTTP_PORT`, defaultPort, { min: 0, max: 65535 }),
    shutdownTimeoutMs: env.int('SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0 }),
    migrateOnStart: env.bool('MIGRATE_ON_START', true),
    http: readHttpTimeouts(env),
  };
}
