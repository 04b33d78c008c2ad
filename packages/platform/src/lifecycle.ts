import type { Logger } from './logger.js';

/**
 * The Node flags every service runs with (decision 0040): `--single-threaded-gc`, so V8's GC
 * helper threads do not compete with the event loop for a small CPU share. The Dockerfile's CMD
 * and the Helm chart's args carry the flags of `serviceNodeFlags` (the deploy tests compare them);
 * `npm start` and the benchmarks start services with them.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];

/**
 * Flags of the services that stream files (decision 0041). What they allocate while a file passes
 * is mostly short-lived socket and file buffers outside the JS heap, which V8 frees only when it
 * collects: a 1 MiB young generation semi-space keeps them (and the idle footprint, ~20 MiB) down.
 * The asset service, off the API's request path, also runs `--optimize-for-size` (V8 collects
 * sooner and keeps less): another ~10 MiB. The events service, which builds feed pages as large
 * strings, and the other services keep V8's defaults.
 */
const STREAMING_SERVICE_NODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  gateway: ['--max-semi-space-size=1'],
  asset: ['--max-semi-space-size=1', '--optimize-for-size'],
};

/** The Node flags of one service's process (by its folder name under services/). */
export function serviceNodeFlags(service: string): readonly string[] {
  return [...SERVICE_NODE_FLAGS, ...(STREAMING_SERVICE_NODE_FLAGS[service] ?? [])];
}

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
