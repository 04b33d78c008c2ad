import { readCommonConfig, type CommonConfig, type EnvReader } from '@catalog/platform';

export type AssetConfig = CommonConfig;

export function readAssetConfig(env: EnvReader): AssetConfig {
  return readCommonConfig(env, 'asset', 8082);
}
