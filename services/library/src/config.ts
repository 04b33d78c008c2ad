import { readCommonConfig, type CommonConfig, type EnvReader } from '@catalog/platform';

export type LibraryConfig = CommonConfig;

export function readLibraryConfig(env: EnvReader): LibraryConfig {
  return readCommonConfig(env, 'library', 8085);
}
