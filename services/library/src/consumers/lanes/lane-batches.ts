import { decodeBusEvent, type BusEvent, type ConsumerMessage, type ConsumerSession } from '@catalog/platform';
import type { LaneSettings } from './lane-settings.js';

/** What became of a lane's messages in a slot: all settled (null), or these to try again after `retryInMs`. */
export type LaneResult = { remaining: ConsumerMessage[]; retryInMs: number } | null;

/**
 * Applies the waiting messages of the lanes a slot took: those of several lanes together when
 * `handleLanes` takes them, else (or when it throws) each lane on its own, the lanes concurrently.
 * A lane holding a message that is not an event is always applied on its own. `retrying`: the
 * lane failed before and goes straight to its messages one by one.
 */
export async function handleLaneBatches(
  s: ConsumerSession,
  lanes: LaneSettings,
  batches: ConsumerMessage[][],
  retrying: boolean,
): Promise<LaneResult[]> {
  const { stream } = s;
  const handleLanes = lanes.handleLanes;
  if (!handleLanes || batches.length === 1 || s.signal.aborted) {
    return Promise.all(batches.map((batch) => handleLaneBatch(s, lanes, batch, retrying)));
  }
  const decoded = batches.map((batch) => batch.map((msg) => ({ msg, event: decodeBusEvent(msg.data) })));
  const together = decoded.map((lane) => lane.every((m) => m.event !== null));
  if (together.some(Boolean)) {
    const events = decoded.filter((_, k) => together[k]);
    try {
      await handleLanes(
        events.map((lane) => lane.map(({ msg, event }) => ({ event: event as BusEvent, position: { stream, seq: msg.seq } }))),
      );
      for (const lane of events) for (const { msg } of lane) s.applied(msg);
      return Promise.all(batches.map((batch, k) => (together[k] ? null : handleLaneBatch(s, lanes, batch, retrying))));
    } catch (error) {
      s.log.warn({ err: error, lanes: events.length }, 'applying lanes together failed; applying each on its own');
    }
  }
  return Promise.all(batches.map((batch) => handleLaneBatch(s, lanes, batch, retrying)));
}

/**
 * Applies a lane's waiting messages: together when `handleMany` takes them, else (or when it
 * throws, or the lane is retrying) one by one until one fails: that one and those after it are
 * the lane's to try again.
 */
async function handleLaneBatch(s: ConsumerSession, lanes: LaneSettings, batch: ConsumerMessage[], retrying: boolean): Promise<LaneResult> {
  const { stream } = s;
  if (s.signal.aborted) {
    for (const msg of batch) msg.nak();
    return null;
  }
  const events = batch.map((msg) => ({ msg, event: decodeBusEvent(msg.data) }));
  const handleMany = lanes.handleMany;
  if (handleMany && !retrying && batch.length > 1 && events.every((e) => e.event !== null)) {
    try {
      await handleMany(events.map(({ msg, event }) => ({ event: event as BusEvent, position: { stream, seq: msg.seq } })));
      for (const msg of batch) s.applied(msg);
      return null;
    } catch (error) {
      s.log.warn({ err: error, count: batch.length }, 'applying events together failed; applying them one by one');
    }
  }
  for (const [k, msg] of batch.entries()) {
    const retryInMs = await s.attempt(msg);
    if (retryInMs !== null) return { remaining: batch.slice(k), retryInMs };
  }
  return null;
}
