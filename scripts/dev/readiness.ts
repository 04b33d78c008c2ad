import { sleep } from '@catalog/platform';

/**
 * Resolves once `url` answers 2xx (a service's /readyz: Postgres and NATS reached, migrations
 * applied); rejects after `timeoutMs`. Each probe gives up after 2 s.
 */
export async function untilReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // not listening yet, or restarting
    }
    await sleep(250);
  }
  throw new Error(`${url} did not become ready within ${Math.round(timeoutMs / 1000)} s`);
}
