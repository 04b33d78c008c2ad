/**
 * The six services as local processes, from source: how each is started and the environment it
 * gets. `npm start` (scripts/dev.ts) and the fault test (test/chaos) both start services through
 * these two functions, so a setting every local service needs is added in one place.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceNodeFlags } from '@catalog/platform';
import type { ProcessSpec } from './supervisor.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SERVICE_NAMES = ['gateway', 'catalog', 'asset', 'analysis', 'events', 'library'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The variable that sets a service's HTTP port: `PORT` for the gateway, `<NAME>_HTTP_PORT` otherwise. */
export function httpPortVariable(service: ServiceName): string {
  return service === 'gateway' ? 'PORT' : `${service.toUpperCase()}_HTTP_PORT`;
}

export interface LocalServiceSettings {
  /** What every service reads (DATABASE_URL, NATS_URL, ADMIN_TOKEN, BLOB_DIR, LOG_LEVEL, ...). */
  shared: NodeJS.ProcessEnv;
  /** Variables of one service only (its own LOG_LEVEL, say), applied last. */
  own?: Partial<Record<ServiceName, Record<string, string>>>;
}

/**
 * The environment of one service process: the shared settings, its HTTP port, its telemetry name
 * and its own overrides. The one place that decides what a local service is given.
 */
export function serviceEnvironment(service: ServiceName, httpPort: number, settings: LocalServiceSettings): NodeJS.ProcessEnv {
  return {
    ...settings.shared,
    [httpPortVariable(service)]: String(httpPort),
    OTEL_SERVICE_NAME: service,
    ...settings.own?.[service],
  };
}

/**
 * A service process from source: its production Node flags (decisions 0040-0042), TypeScript
 * through tsx, the telemetry register, `services/<service>/src/main.ts`.
 */
export function serviceProcess(name: string, service: ServiceName, env: NodeJS.ProcessEnv): ProcessSpec {
  return {
    name,
    command: process.execPath,
    args: [
      ...serviceNodeFlags(service),
      '--conditions=source',
      '--import',
      'tsx',
      '--import',
      '@catalog/platform/telemetry-register',
      `services/${service}/src/main.ts`,
    ],
    cwd: repoRoot,
    env,
  };
}
