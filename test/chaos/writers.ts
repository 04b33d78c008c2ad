import { sleep } from '@catalog/platform';
import { eventually } from '@catalog/testing';

/**
 * Clients creating entities through the gateway one at a time, each with a pause between writes
 * (a modest, steady rate), for as long as the faults last. Every answer is kept: the entities
 * that answered 201 (id and title), and how often anything else came back.
 */
export interface Writers {
  /** id → title of every entity whose creation answered 201. */
  created: Map<string, string>;
  /** Any other answer (status, or the error of a request that got none) and how often. */
  failures: Map<string, number>;
  /** Resolves once `more` further creations have answered 201. */
  untilCreated(more: number, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export function startWriters(baseUrl: string, key: string, options: { writers: number; pauseMs: number }): Writers {
  const created = new Map<string, string>();
  const failures = new Map<string, number>();
  const stopping = new AbortController();
  const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);

  const write = async (title: string): Promise<void> => {
    try {
      const response = await fetch(`${baseUrl}/api/v1/catalog/entities`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'song', title }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await response.json().catch(() => null)) as { id?: string } | null;
      if (response.status === 201 && body?.id) created.set(body.id, title);
      else fail(String(response.status));
    } catch (error) {
      fail((error as Error).name);
    }
  };

  const loops = Array.from({ length: options.writers }, async (_, writer) => {
    for (let n = 0; !stopping.signal.aborted; n += 1) {
      await write(`chaos w${writer} #${n}`);
      await sleep(options.pauseMs, stopping.signal);
    }
  });

  return {
    created,
    failures,
    async untilCreated(more, timeoutMs) {
      const target = created.size + more;
      await eventually(async () => (created.size >= target ? true : undefined), timeoutMs, 20);
    },
    async stop() {
      stopping.abort();
      await Promise.all(loops);
    },
  };
}
