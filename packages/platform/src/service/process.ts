import { canReleaseChunks } from '../http/chunk-relay.js';
import type { Logger } from '../observability/logger.js';
import { platformCounter, processMetrics, type MetricsRegistry } from '../observability/metrics.js';

/**
 * The Node flags every service runs with (decision 0040): `--single-threaded-gc`, so V8's GC
 * helper threads do not compete with the event loop for a small CPU share. The Dockerfile's CMD
 * and the Helm chart's args carry the flags of `serviceNodeFlags` (the deploy tests compare them);
 * `npm start` and the benchmarks start services with them.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];

/**
 * The services that stream files, gateway and asset service, give each chunk's memory back as
 * soon as it is written (decision 0042) with `ArrayBuffer.prototype.transfer`: standard in the V8
 * of Node 21 and later, behind this flag in Node 20's (a later V8 refuses the flag, so it is
 * passed only where it is needed). Without it a transfer left up to ~64 MB of spent buffers
 * waiting for V8 to collect them.
 */
const CHUNK_RELEASE_FLAGS: readonly string[] = canReleaseChunks ? [] : ['--harmony-rab-gsab-transfer'];

/**
 * Per service (decisions 0041, 0042, 0171, 0175). The asset service, off the API's request
 * path, also runs a 1 MiB young generation and `--optimize-for-size` (V8 collects sooner and
 * keeps less: ~20 MiB less idle). The gateway, on every API request, keeps V8's default young generation: the small
 * one cost it ~7 % of write throughput, and chunk release keeps its transfers small anyway.
 * The events service runs an 8 MiB semi-space: in its chart limit V8 picks 1 MiB, and a feed page
 * (~200 KB of text read from Postgres) outlived the scavenges it caused, was promoted and made a
 * full collection every ~70 pages, whose marking paused pages for up to 40 ms (decision 0171).
 * A larger one (16 MiB) let the page buffers outside the heap pile up between scavenges until
 * they forced full collections as often. With that young generation V8 left its old generation
 * only a young generation's room above the live heap, and so started marking again right after
 * each full collection (every 0.2–0.3 s under feed reads): `--heap-growing-percent=100` lets the
 * old generation grow to twice the live heap first (decision 0175). The others keep V8's defaults.
 */
const STREAMING_SERVICE_NODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  gateway: [...CHUNK_RELEASE_FLAGS],
  asset: ['--max-semi-space-size=1', '--optimize-for-size', ...CHUNK_RELEASE_FLAGS],
  events: ['--max-semi-space-size=8', '--heap-growing-percent=100'],
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

/**
 * Makes a promise rejection that nothing handled a logged error (counted in
 * `catalog_unhandled_rejections_total`) instead of the end of the process, which is Node's
 * default: one forgotten `catch` on a rare path must not take a service, and with `npm start` the
 * whole local system, down. Thrown exceptions (`uncaughtException`) still end the process: after
 * one, its state is unknown. Installed once per process (later calls do nothing); returns whether
 * this call installed it.
 */
export function logUnhandledRejections(logger: Logger, metrics: MetricsRegistry = processMetrics): boolean {
  if (rejectionsLogged) return false;
  rejectionsLogged = true;
  const unhandled = platformCounter(metrics, 'unhandledRejections');
  process.on('unhandledRejection', (reason: unknown) => {
    unhandled.inc();
    logger.error({ err: reason }, 'unhandled promise rejection (logged; the process goes on)');
  });
  return true;
}

let rejectionsLogged = false;
