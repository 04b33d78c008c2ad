import { createLogger, logUnhandledRejections, readConfig, stopOnSignals } from '@catalog/platform';
import { gatewayConfig } from './config.js';
import { startGateway } from './service.js';

try {
  const config = readConfig(gatewayConfig);
  const { runtime } = await startGateway(config);
  logUnhandledRejections(runtime.logger);
  stopOnSignals(runtime.logger, () => runtime.stop(), config.shutdownTimeoutMs + 5_000);
} catch (error) {
  createLogger({ service: 'gateway' }).fatal({ err: error }, 'gateway failed to start');
  process.exit(1);
}
