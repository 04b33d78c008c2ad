import type { Logger } from '../observability/logger.js';

export interface PeriodicTask {
  /** Says what runs, in the log line of a failed run (e.g. `retention sweep`). */
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
  logger: Logger;
}

/**
 * Runs `task.run` every `intervalMs`, the first time one interval after the start. Runs never
 * overlap: the next waits for the one before to end, then the interval. A failed run is logged and
 * the next comes as usual. The returned function stops it, waiting for a run in progress.
 */
export function startPeriodicTask(task: PeriodicTask): () => Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = (): void => {
    running = task
      .run()
      .then(() => undefined)
      .catch((error: unknown) => task.logger.error({ err: error, task: task.name }, `${task.name} failed`))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, task.intervalMs);
      });
  };
  timer = setTimeout(tick, task.intervalMs);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
