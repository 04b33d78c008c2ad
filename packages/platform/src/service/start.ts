import { startEventConsumer, type EventConsumerSettings } from '../bus/event-consumer.js';
import type { Logger } from '../observability/logger.js';
import { packageVersion } from './package-version.js';
import { startPeriodicTask, type PeriodicTask } from '../support/periodic.js';
import { startServiceRuntime, type ServiceRuntime, type ServiceRuntimeSettings } from './runtime.js';

export interface StartServiceSettings extends Omit<ServiceRuntimeSettings, 'version' | 'logger'> {
  /** The service's `import.meta.url`: it announces the version of its package.json (`packageVersion`). */
  moduleUrl: string;
  logger?: Logger | undefined;
}

/**
 * A service's `service.ts`: starts the parts every service has (`startServiceRuntime`), then
 * `wire` starts what this service adds (its operations, consumers, periodic tasks; its HTTP
 * routes if it calls `runtime.listen` itself), then the HTTP listener with the health checks if
 * `wire` did not start one. Whatever fails stops all that had started, and the error goes on.
 * Returns what `wire` returns (the runtime, or a handle built on it).
 */
export async function startService<DB, Handle>(
  settings: StartServiceSettings,
  wire: (runtime: ServiceRuntime<DB>) => Promise<Handle>,
): Promise<Handle> {
  const { moduleUrl, logger, ...runtimeSettings } = settings;
  const runtime = await startServiceRuntime<DB>({
    ...runtimeSettings,
    version: packageVersion(moduleUrl),
    ...(logger ? { logger } : {}),
  });
  try {
    const handle = await wire(runtime);
    if (!runtime.http) await runtime.listen();
    return handle;
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}

/** A consumer of events (`startEventConsumer`) on the service's connection, stopped with the service. */
export function consumeEvents<DB>(runtime: ServiceRuntime<DB>, settings: Omit<EventConsumerSettings, 'nc' | 'subjects' | 'logger'>): void {
  const consumer = startEventConsumer({ nc: runtime.nc, subjects: runtime.subjects, logger: runtime.logger, ...settings });
  runtime.onStop(() => consumer.stop());
}

/** A periodic task (`startPeriodicTask`) logging to the service's logger, stopped with the service. */
export function runPeriodically<DB>(runtime: ServiceRuntime<DB>, task: Omit<PeriodicTask, 'logger'>): void {
  runtime.onStop(startPeriodicTask({ ...task, logger: runtime.logger }));
}
