import { createLogger, logUnhandledRejections, readConfig, stopOnSignals } from '@catalog/platform';
import { analysisConfig } from './config.js';
import { startAnalysisService } from './service.js';

try {
  const config = readConfig(analysisConfig);
  const runtime = await startAnalysisService(config);
  logUnhandledRejections(runtime.logger);
  stopOnSignals(runtime.logger, () => runtime.stop(), config.shutdownTimeoutMs + 5_000);
} catch (error) {
  createLogger({ service: 'analysis' }).fatal({ err: error }, 'analysis service failed to start');
  process.exit(1);
}
