import type { TObject } from '@sinclair/typebox';
import type { CommonConfig } from '../config/common.js';
import { readConfig, type ConfigDefinition } from '../config/read-config.js';
import { logUnhandledRejections, stopOnSignals } from './process.js';
import { createLogger, type Logger } from '../observability/logger.js';

/** What a service's start function gives back: its logger, and how to stop all it started. */
export interface RunningService {
  logger: Logger;
  stop(): Promise<void>;
}

/**
 * A service's `main.ts`: reads its configuration from the environment (one error naming every bad
 * variable), starts it, logs promise rejections nothing handled (the process goes on) and stops
 * it on SIGTERM or SIGINT (exiting once stopped, or after its shutdown timeout and 5 s more).
 * A configuration or start that fails is logged as fatal and the process exits 1.
 */
export async function runService<S extends TObject, C extends CommonConfig>(
  name: string,
  definition: ConfigDefinition<S, C>,
  start: (config: C) => Promise<RunningService>,
): Promise<void> {
  try {
    const config = readConfig(definition);
    const service = await start(config);
    logUnhandledRejections(service.logger);
    stopOnSignals(service.logger, () => service.stop(), config.shutdownTimeoutMs + 5_000);
  } catch (error) {
    createLogger({ service: name }).fatal({ err: error }, `the ${name} service failed to start`);
    process.exit(1);
  }
}
