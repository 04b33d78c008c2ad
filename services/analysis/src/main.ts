import { runService } from '@catalog/platform';
import { analysisConfig } from './config.js';
import { startAnalysisService } from './service.js';

await runService('analysis', analysisConfig, (config) => startAnalysisService(config));
