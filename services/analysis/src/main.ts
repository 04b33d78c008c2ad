import { createLogger, logUnhandledRejections, readConfig, stopOnSignals } from '@catalog/platform';
import { readAnalysisConfig } from './config.js';
import { startAnalysisService } from './service.js';

try {
  const config = readConfig(readAnalysisConfig);
  const runtime = await startAnalysisService(config);
  logUnhandledRejections(runtime.logger);
  stopOnSignals(runtime.logger, () => runtime.stop(), config.shutdownTimeoutMs + 5_000);
} catch (error) {
  createLogger({ service: 'analysis' }).fatal({ err: error }, 'analysis service failed to start');
  process.exit(1);
}
