import type { BusEvent, EventPosition } from '@catalog/platform';

/** Events of one lane that waited together, in stream order, with their positions. */
export type LaneEvents = Array<{ event: BusEvent; position: EventPosition }>;

/** How a consumer's messages are followed in lanes (decisions 0106, 0111, 0114). */
export interface LaneSettings {
  /**
   * The lane of an event (an entity, say): events of one lane are applied in stream order and
   * those of different lanes concurrently (`concurrency` lanes at most).
   */
  laneOf(event: BusEvent): string;
  /** Lanes applied at once at most (default 1). */
  concurrency?: number;
  /** Slots the lanes of one tenant hold at once at most (default `concurrency`; decision 0114). */
  slotsPerTenant?: number;
  /** With `handleLanes`: lanes waiting for a slot that one slot takes together at most (default 1). */
  lanesPerBatch?: number;
  /**
   * Applies the events of one lane that waited together (stream order) as one, committed at once;
   * when it throws they are applied one by one through the consumer's `handle` (retries, dead letters).
   */
  handleMany?(events: LaneEvents): Promise<unknown>;
  /**
   * Applies the waiting events of several lanes (each in stream order) as one, committed at once;
   * when it throws, each lane is applied on its own (`handleMany`, then `handle`).
   */
  handleLanes?(lanes: LaneEvents[]): Promise<unknown>;
}
