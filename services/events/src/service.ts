import { startServiceRuntime, type Logger, type ServiceRuntime } from '@catalog/platform';
import type { EventsConfig } from './config.js';
import { eventsMigrations } from './migrations/index.js';

/** Starts the events service: migrations, NATS endpoints, health checks. */
export async function startEventsService(config: EventsConfig, options: { logger?: Logger } = {}): Promise<ServiceRuntime<unknown>> {
  const runtime = await startServiceRuntime<unknown>({
    config,
    schema: 'events',
    migrations: eventsMigrations,
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
