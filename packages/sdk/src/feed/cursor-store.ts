/**
 * Where a feed consumer keeps its place: the cursor of the last processed page (rule 4 of part 6)
 * and the ids of the latest events it processed (rule 7: delivery is at least once, the consumer
 * dedupes on id, across restarts too). One state per consumer name and `types` filter (rule 8).
 */
export interface CursorState {
  /** `nextCursor` of the last processed page; null before the first. */
  cursor: string | null;
  /** Ids of the latest processed events, oldest first (bounded by the consumer's dedupe window). */
  recentIds: string[];
}

export interface CursorStore {
  /** The saved state of `key`, or null when none was saved. */
  load(key: string): Promise<CursorState | null>;
  /** Saves the state of `key`; resolves once it is durable (a crash after it keeps it). */
  save(key: string, state: CursorState): Promise<void>;
}

/**
 * The store key of a consumer: its name and its types filter, the types sorted and without
 * repeats (`a,b` and `b,a` are one filter); `*` for no filter. A consumer that changes its filter
 * starts a new cursor, as rule 8 requires.
 */
export function cursorKey(name: string, types?: readonly string[]): string {
  const filter = types && types.length > 0 ? [...new Set(types)].sort().join(',') : '*';
  return `${name}|${filter}`;
}

/** A state read from storage, checked: what no consumer wrote is refused rather than trusted. */
export function parseCursorState(value: unknown): CursorState {
  const state = value as Partial<CursorState> | null;
  const cursorOk = state !== null && typeof state === 'object' && (state.cursor === null || typeof state.cursor === 'string');
  if (!cursorOk || !Array.isArray(state.recentIds) || !state.recentIds.every((id) => typeof id === 'string')) {
    throw new Error('stored cursor state is malformed: expected {cursor: string | null, recentIds: string[]}');
  }
  return { cursor: state.cursor ?? null, recentIds: state.recentIds };
}

/** A store in memory (tests, or a consumer that may start over). */
export function memoryCursorStore(): CursorStore {
  const states = new Map<string, CursorState>();
  return {
    async load(key) {
      const state = states.get(key);
      return state ? { cursor: state.cursor, recentIds: [...state.recentIds] } : null;
    },
    async save(key, state) {
      states.set(key, { cursor: state.cursor, recentIds: [...state.recentIds] });
    },
  };
}
