import { commonConfig, type ConfigOf } from '@catalog/platform';

export const analysisConfig = commonConfig('analysis', 8083);

export type AnalysisConfig = ConfigOf<typeof analysisConfig>;
