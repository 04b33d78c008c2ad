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
  databaseUrl: string;
  migrationDatabaseUrl: string;
  dbPoolSize: number;
  /** Parameterised statements each connection prepares (outside transactions); 0: none. */
  dbPreparedStatementsPerConnection: number;
  natsUrl: string;
  natsPrefix: string;
  httpHost: string;
  httpPort: number;
  shutdownTimeoutMs: number;
  /** Apply the service's migrations when it starts (off when a deployment job runs them). */
  migrateOnStart: boolean;
  /** Timeouts of the service's HTTP listener (decision 0050). */
  http: HttpTimeouts;
}

export function readCommonConfig(env: EnvReader, serviceName: string, defaultPort: number): CommonConfig {
  const databaseUrl = env.url('DATABASE_URL', undefined, ['postgres', 'postgresql']);
  return {
    serviceName,
    logLevel: env.oneOf('LOG_LEVEL', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const, 'info'),
    databaseUrl,
    migrationDatabaseUrl: env.optionalString('MIGRATION_DATABASE_URL') ?? databaseUrl,
    dbPoolSize: env.int('DB_POOL_SIZE', 10, { min: 1, max: 200 }),
    dbPreparedStatementsPerConnection: env.int('DB_PREPARED_STATEMENTS_PER_CONNECTION', 200, { min: 0, max: 10_000 }),
    natsUrl: env.string('NATS_URL', 'nats://127.0.0.1:4222'),
    natsPrefix: env.string('NATS_PREFIX', 'cs'),
    httpHost: env.string('HTTP_HOST', '0.0.0.0'),
    httpPort: env.int(`${serviceName.toUpperCase()}_HTTP_PORT`, defaultPort, { min: 0, max: 65535 }),
    shutdownTimeoutMs: env.int('SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0 }),
    migrateOnStart: env.bool('MIGRATE_ON_START', true),
    http: readHttpTimeouts(env),
  };
}
