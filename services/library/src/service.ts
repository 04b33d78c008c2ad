import { packageVersion, startServiceRuntime, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { LibraryConfig } from './config.js';
import { libraryMigrations } from './migrations/index.js';

/** Starts the library service: migrations, NATS endpoints, health checks. */
export async function startLibraryService(config: LibraryConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<unknown>> {
  const runtime = await startServiceRuntime<unknown>({
    config,
    schema: 'library',
    migrations: libraryMigrations,
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
