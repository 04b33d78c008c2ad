/** One tenant's place in a `FairQueue`: what it has waiting and running, and when it last had a turn. */
interface TenantLine<T> {
  waiting: T[];
  running: number;
  lastTurn: number;
}

/** What `FairQueue.take` hands out: the item and the tenant it runs for. */
export interface FairTurn<T> {
  tenantId: string;
  item: T;
}

/**
 * Work waiting to run in one process, by tenant, handed out fairly: the tenant with the fewest
 * items running goes first, and among equals the one whose last turn is oldest (round robin). So
 * a tenant's first item waits for one slot to come free, however many items others have waiting.
 * Each tenant keeps at most `perTenant` waiting; more are refused (`offer` answers false) and the
 * caller gives them back to the shared queue for later.
 */
export interface FairQueue<T> {
  /** Adds an item to its tenant's line; false when that line is full (the item is not kept). */
  offer(tenantId: string, item: T): boolean;
  /** The next item to run (its tenant counts one more running), or undefined when nothing waits. */
  take(): FairTurn<T> | undefined;
  /** An item of the tenant stopped running. */
  done(tenantId: string): void;
  /** Takes every waiting item out, leaving the running counts. */
  drain(): T[];
  /** Items waiting, over every tenant. */
  readonly waiting: number;
}

export function fairQueue<T>(perTenant: number): FairQueue<T> {
  const lines = new Map<string, TenantLine<T>>();
  let turns = 0;
  let waiting = 0;
  const forget = (tenantId: string, line: TenantLine<T>): void => {
    if (line.running === 0 && line.waiting.length === 0) lines.delete(tenantId);
  };
  return {
    offer(tenantId, item) {
      const line = lines.get(tenantId) ?? { waiting: [], running: 0, lastTurn: -1 };
      if (line.waiting.length >= perTenant) return false;
      line.waiting.push(item);
      lines.set(tenantId, line);
      waiting += 1;
      return true;
    },
    take() {
      let next: [string, TenantLine<T>] | undefined;
      for (const entry of lines) {
        const [, line] = entry;
        if (line.waiting.length === 0) continue;
        const best = next?.[1];
        if (!best || line.running < best.running || (line.running === best.running && line.lastTurn < best.lastTurn)) next = entry;
      }
      if (!next) return undefined;
      const [tenantId, line] = next;
      const item = line.waiting.shift()!;
      waiting -= 1;
      line.running += 1;
      line.lastTurn = turns++;
      return { tenantId, item };
    },
    done(tenantId) {
      const line = lines.get(tenantId);
      if (!line) return;
      line.running = Math.max(0, line.running - 1);
      forget(tenantId, line);
    },
    drain() {
      const items: T[] = [];
      for (const [tenantId, line] of lines) {
        items.push(...line.waiting.splice(0));
        forget(tenantId, line);
      }
      waiting = 0;
      return items;
    },
    get waiting() {
      return waiting;
    },
  };
}
