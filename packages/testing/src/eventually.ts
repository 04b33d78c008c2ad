/** Polls `probe` until it returns a value that is not undefined, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

/**
 * Polls `count` until it reaches `target`; fails only when it stops growing for `stallMs`. For a
 * wait on a long piece of work (a large import projected, say) whose length follows the machine's
 * speed: what fails the test is the work standing still, not its total time.
 */
export async function untilCountReaches(
  count: () => Promise<number>,
  target: number,
  options: { stallMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const { stallMs = 60_000, intervalMs = 500 } = options;
  let last = -1;
  let movedAt = Date.now();
  for (;;) {
    const now = await count();
    if (now >= target) return;
    if (now > last) {
      last = now;
      movedAt = Date.now();
    } else if (Date.now() - movedAt > stallMs) {
      throw new Error(`stuck at ${now} of ${target} for ${stallMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
