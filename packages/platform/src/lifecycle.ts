import type { Logger } from './logger.js';

/**
 * The Node flags every service runs with (decision 0040): `--single-threaded-gc`, so V8's GC
 * helper threads do not compete with the event loop for a small CPU share. The Dockerfile's CMD
 * and the Helm chart's args carry the same flags (the deploy tests compare them with this list);
 * `npm start` and the benchmarks start services with it.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. A second signal, or a stop that takes longer
 * than `timeoutMs`, exits at once.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, timeoutMs = 15_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
