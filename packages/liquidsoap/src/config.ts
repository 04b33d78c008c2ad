import { join, resolve } from 'node:path';

/** What a station sets (environment variables, docs/integrations.md "Liquidsoap"). */
export interface ConnectorConfig {
  /** The catalog's address (CATALOG_URL). */
  catalogUrl: string;
  /** A key bound to the integration (CATALOG_API_KEY); never logged. */
  apiKey: string;
  /** The playout integration this connector serves (CATALOG_INTEGRATION_ID). */
  integrationId: string;
  /** Where the files are kept (LIQUIDSOAP_MEDIA_DIR). */
  mediaDir: string;
  /** The playlist Liquidsoap reads (LIQUIDSOAP_PLAYLIST, default `<media>/catalog.m3u`). */
  playlist: string;
  /** Where the feed cursor is kept (LIQUIDSOAP_STATE_DIR, default `<media>/.catalog-state`). */
  stateDir: string;
  /** Integrated loudness every song is brought to (LIQUIDSOAP_TARGET_LUFS, default −14). */
  targetLufs: number;
  /** Heartbeat when the integration sets none (LIQUIDSOAP_HEARTBEAT_SECONDS, default 60). */
  defaultHeartbeatSeconds: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The configuration from `env`; every problem named at once, as one error. */
export function readConfig(env: NodeJS.ProcessEnv): ConnectorConfig {
  const problems: string[] = [];
  const required = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) problems.push(`${name} is required`);
    return value ?? '';
  };
  const number = (name: string, fallback: number, min: number, max: number): number => {
    const text = env[name]?.trim();
    if (!text) return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < min || value > max) problems.push(`${name} must be a number from ${min} to ${max}`);
    return value;
  };
  const catalogUrl = required('CATALOG_URL');
  if (catalogUrl && !/^https?:\/\//.test(catalogUrl)) problems.push('CATALOG_URL must be an http(s) address');
  const apiKey = required('CATALOG_API_KEY');
  const integrationId = required('CATALOG_INTEGRATION_ID');
  if (integrationId && !UUID.test(integrationId)) problems.push('CATALOG_INTEGRATION_ID must be the integration id (a UUID)');
  const mediaDir = resolve(required('LIQUIDSOAP_MEDIA_DIR') || '.');
  const config: ConnectorConfig = {
    catalogUrl,
    apiKey,
    integrationId,
    mediaDir,
    playlist: resolve(env.LIQUIDSOAP_PLAYLIST?.trim() || join(mediaDir, 'catalog.m3u')),
    stateDir: resolve(env.LIQUIDSOAP_STATE_DIR?.trim() || join(mediaDir, '.catalog-state')),
    targetLufs: number('LIQUIDSOAP_TARGET_LUFS', -14, -70, 0),
    defaultHeartbeatSeconds: number('LIQUIDSOAP_HEARTBEAT_SECONDS', 60, 5, 86_400),
  };
  if (problems.length > 0) throw new Error(`configuration: ${problems.join('; ')}`);
  return config;
}
