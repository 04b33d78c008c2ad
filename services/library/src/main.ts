import { createLogger, logUnhandledRejections, readConfig, stopOnSignals } from '@catalog/platform';
import { libraryConfig } from './config.js';
import { startLibraryService } from './service.js';

try {
  const config = readConfig(libraryConfig);
  const runtime = await startLibraryService(config);
  logUnhandledRejections(runtime.logger);
  stopOnSignals(runtime.logger, () => runtime.stop(), config.shutdownTimeoutMs + 5_000);
} catch (error) {
  createLogger({ service: 'library' }).fatal({ err: error }, 'library service failed to start');
  process.exit(1);
}
