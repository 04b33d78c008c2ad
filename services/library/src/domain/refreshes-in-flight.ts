import type { EventPosition } from '@catalog/platform';

/**
 * The entity refreshes running in this process, shared by the library's two consumers (decision
 * 0176). Both receive a quiet tenant's event at the same moment (the express path and the main
 * consumer, decision 0150); the second to arrive waits for the first's refresh of the entity
 * instead of reading the catalog and writing the same track again.
 */
export interface RefreshesInFlight {
  /**
   * Takes the refresh of an entity up to `position`: either another refresh of it, at that
   * position or later of the same stream, is running (`covered`: true once that one committed,
   * false if it failed), or this one is now the entity's (`done` to call when it ends).
   */
  enter(
    tenantId: string,
    entityId: string,
    position: EventPosition,
  ): { covered: Promise<boolean> } | { done: (committed: boolean) => void };
}

export function refreshesInFlight(): RefreshesInFlight {
  const running = new Map<string, { position: EventPosition; ended: Promise<boolean> }>();
  return {
    enter(tenantId, entityId, position) {
      const key = `${tenantId}:${entityId}`;
      const other = running.get(key);
      if (other && other.position.stream === position.stream && other.position.seq >= position.seq) return { covered: other.ended };
      let end!: (committed: boolean) => void;
      const entry = { position, ended: new Promise<boolean>((resolve) => (end = resolve)) };
      running.set(key, entry);
      return {
        done(committed) {
          if (running.get(key) === entry) running.delete(key);
          end(committed);
        },
      };
    },
  };
}
