import { packageVersion, startServiceRuntime, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { AnalysisConfig } from './config.js';
import { analysisMigrations } from './migrations/index.js';

/** Starts the analysis service: migrations, NATS endpoints, health checks. */
export async function startAnalysisService(config: AnalysisConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<unknown>> {
  const runtime = await startServiceRuntime<unknown>({
    config,
    schema: 'analysis',
    migrations: analysisMigrations,
    version: packageVersion(import.meta.url),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    await runtime.serve([]);
    await runtime.listen();
    return runtime;
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
