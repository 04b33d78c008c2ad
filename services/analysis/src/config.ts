import { readCommonConfig, type CommonConfig, type EnvReader } from '@catalog/platform';

export type AnalysisConfig = CommonConfig;

export function readAnalysisConfig(env: EnvReader): AnalysisConfig {
  return readCommonConfig(env, 'analysis', 8083);
}
