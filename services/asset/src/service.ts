import { startServiceRuntime, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { AssetConfig } from './config.js';
import { assetMigrations } from './migrations/index.js';

/** Starts the asset service: migrations, NATS endpoints, health checks. */
export async function startAssetService(config: AssetConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<unknown>> {
  const runtime = await startServiceRuntime<unknown>({
    config,
    schema: 'asset',
    migrations: assetMigrations,
    version: '0.1.0',
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    await runtime.serve({});
    await runtime.listen();
    return runtime;
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
