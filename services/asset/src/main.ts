import { createLogger, logUnhandledRejections, readConfig, stopOnSignals } from '@catalog/platform';
import { assetConfig } from './config.js';
import { startAssetService } from './service.js';

try {
  const config = readConfig(assetConfig);
  const runtime = await startAssetService(config);
  logUnhandledRejections(runtime.logger);
  stopOnSignals(runtime.logger, () => runtime.stop(), config.shutdownTimeoutMs + 5_000);
} catch (error) {
  createLogger({ service: 'asset' }).fatal({ err: error }, 'asset service failed to start');
  process.exit(1);
}
