export { analysisConfig, type AnalysisConfig } from './config.js';
export { startAnalysisService, type AnalysisServiceOptions } from './service.js';
export { analysisMigrations } from './migrations/index.js';
export * from './analyzers/index.js';
