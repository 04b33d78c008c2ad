import { createLogger, logUnhandledRejections, readConfig, stopOnSignals } from '@catalog/platform';
import { catalogConfig } from './config.js';
import { startCatalogService } from './service.js';

try {
  const config = readConfig(catalogConfig);
  const runtime = await startCatalogService(config);
  logUnhandledRejections(runtime.logger);
  stopOnSignals(runtime.logger, () => runtime.stop(), config.shutdownTimeoutMs + 5_000);
} catch (error) {
  createLogger({ service: 'catalog' }).fatal({ err: error }, 'catalog service failed to start');
  process.exit(1);
}
