import { readCommonConfig, type CommonConfig, type EnvReader } from '@catalog/platform';

/** The catalog service needs only the settings every service shares. */
export type CatalogConfig = CommonConfig;

export function readCatalogConfig(env: EnvReader): CatalogConfig {
  return readCommonConfig(env, 'catalog', 8081);
}
