/**
 * `docs/configuration.md`: every environment variable of every service, from the configuration
 * schemas of the services (`services/<name>/src/config.ts`). Written by `npm run docs:config`
 * (scripts/gen-config-doc.ts); a test (test/deploy/configuration.test.ts) fails when it is stale.
 */
import { analysisConfig } from '@catalog/analysis';
import { assetConfig } from '@catalog/asset';
import { catalogConfig } from '@catalog/catalog';
import { eventsConfig } from '@catalog/events';
import { gatewayConfig } from '@catalog/gateway';
import { libraryConfig } from '@catalog/library';
import { envVariables, type EnvVariable } from '@catalog/platform';

/** Each service's configuration, by service name. */
export const SERVICE_CONFIGS = {
  gateway: gatewayConfig,
  catalog: catalogConfig,
  asset: assetConfig,
  analysis: analysisConfig,
  events: eventsConfig,
  library: libraryConfig,
} as const;

export type ServiceName = keyof typeof SERVICE_CONFIGS;
const SERVICES = Object.keys(SERVICE_CONFIGS) as ServiceName[];

/** The variables `service` reads. */
export function serviceVariables(service: ServiceName): EnvVariable[] {
  return envVariables(SERVICE_CONFIGS[service].schema);
}

const code = (value: string | number | boolean): string => `\`${value}\``;

function typeOf(v: EnvVariable): string {
  const bounds =
    v.minimum !== undefined && v.maximum !== undefined
      ? ` ${v.minimum}–${v.maximum}`
      : v.minimum !== undefined
        ? ` ≥ ${v.minimum}`
        : v.maximum !== undefined
          ? ` ≤ ${v.maximum}`
          : '';
  switch (v.kind) {
    case 'integer':
      return `integer${bounds}`;
    case 'url':
      return `URL (${v.protocols?.join(', ')})${v.secret ? ', secret' : ''}`;
    case 'enum':
      return (v.values ?? []).map(code).join(' \\| ');
    case 'secret':
      return v.minLength ? `secret, ≥ ${v.minLength} characters` : 'secret';
    default:
      return v.kind;
  }
}

function defaultOf(v: EnvVariable): string {
  if (v.required) return '**required**';
  if (v.default !== undefined) return code(v.default);
  return v.defaultText ?? 'unset';
}

/** One table row; `name` as the table shows it. */
function row(v: EnvVariable, name: string): string {
  return `| \`${name}\` | ${typeOf(v)} | ${defaultOf(v)} | ${v.description.replace(/\|/g, '\\|')} |`;
}

const TABLE_HEAD = ['| variable | type | default | what it sets |', '|---|---|---|---|'];

/** A service's own variables (`CATALOG_DATABASE_URL`) as every service's row shows them (`<SERVICE>_DATABASE_URL`). */
const generalRow = (service: ServiceName, v: EnvVariable): string =>
  row(v, v.name.startsWith(`${service.toUpperCase()}_`) ? `<SERVICE>_${v.name.slice(service.length + 1)}` : v.name);

export function renderConfigurationDoc(): string {
  const rows = new Map(
    SERVICES.map((service) => [service, serviceVariables(service).map((v) => ({ v, general: generalRow(service, v) }))]),
  );
  const shared = (rows.get('gateway') ?? [])
    .map((r) => r.general)
    .filter((line) => SERVICES.every((s) => rows.get(s)!.some((r) => r.general === line)));
  const lines = [
    '# Configuration',
    '',
    "<!-- Generated from the services' configuration schemas by `npm run docs:config`. Do not edit by hand. -->",
    '',
    'Every setting is an environment variable, read once when the service starts. An empty variable counts as unset. A bad',
    'value stops the service with one message that names every bad variable (never the value of a secret). Each service',
    'declares its variables in `services/<name>/src/config.ts` (a TypeBox schema read by `readConfig` of `@catalog/platform`).',
    "`<SERVICE>_…` variables are the service's own (`CATALOG_DATABASE_URL`), so that one environment can hold every",
    "service's credentials; they win over the shared ones. Traces are exported by OpenTelemetry's own variables",
    '(`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, `OTEL_SDK_DISABLED`), read by `@catalog/platform/telemetry-register`.',
    '',
    '## Every service',
    '',
    ...TABLE_HEAD,
    ...shared,
  ];
  for (const service of SERVICES) {
    lines.push('', `## ${service}`, '');
    const own = rows.get(service)!.filter((r) => !shared.includes(r.general));
    lines.push(...TABLE_HEAD, ...own.map((r) => row(r.v, r.v.name)));
  }
  return `${lines.join('\n')}\n`;
}
