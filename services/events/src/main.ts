import { createLogger, logUnhandledRejections, readConfig, stopOnSignals } from '@catalog/platform';
import { eventsConfig } from './config.js';
import { startEventsService } from './service.js';

try {
  const config = readConfig(eventsConfig);
  const runtime = await startEventsService(config);
  logUnhandledRejections(runtime.logger);
  stopOnSignals(runtime.logger, () => runtime.stop(), config.shutdownTimeoutMs + 5_000);
} catch (error) {
  createLogger({ service: 'events' }).fatal({ err: error }, 'events service failed to start');
  process.exit(1);
}
