import { decodeBusEvent, type ConsumerMessage, type ConsumerSession } from '@catalog/platform';
import { handleLaneBatches, type LaneResult } from './lane-batches.js';
import type { LaneSettings } from './lane-settings.js';

/** A lane: its messages not yet applied (waiting, or taken by a slot), and where it stands. */
interface Lane {
  key: string;
  /** The tenant of its events ('' for a message that is not an event). */
  tenant: string;
  messages: ConsumerMessage[];
  /** It failed and waits out its backoff (without a slot), or is queued again after it. */
  retrying: boolean;
}

/** The lanes' widths: slots in all, slots one tenant's lanes may hold at once, lanes per slot. */
interface Widths {
  slots: number;
  perTenant: number;
  perBatch: number;
}

function widthsOf(settings: LaneSettings): Widths {
  const slots = Math.max(1, settings.concurrency ?? 1);
  return {
    slots,
    perTenant: Math.min(slots, Math.max(1, settings.slotsPerTenant ?? slots)),
    perBatch: settings.handleLanes ? Math.max(1, settings.lanesPerBatch ?? 1) : 1,
  };
}

/**
 * Follows a consumer session's messages in lanes (`laneOf`; decisions 0106, 0111, 0114, 0129), as
 * the consumer's `follow` hook: each message is applied through the session (`attempt`: its
 * `handle`, retries and dead letters) or with others (`handleMany`, `handleLanes`, then
 * `applied`). A lane's messages in stream order, at most `concurrency` lanes applied at once, and
 * fairly across tenants:
 * - lanes waiting for a slot queue by tenant, and the tenants take turns (round robin): a free
 *   slot goes to the next tenant in turn, whatever the number of lanes another one has queued;
 * - one tenant's lanes hold at most `slotsPerTenant` slots at once, so lanes that hang (a call
 *   that times out, a lock wait) leave the other slots to the other tenants;
 * - a slot takes up to `lanesPerBatch` lanes of that tenant (`handleLanes`), applied as one;
 * - a lane whose message fails gives its slot up and waits out its backoff off-slot, then queues
 *   again (alone, its messages one by one) until the message is applied or parked (AttemptBook).
 * Messages keep being taken while every slot is busy (JetStream delivers at most `maxAckPending`
 * unacknowledged ones); each joins its lane, and a lane that waited takes all of them at once
 * (`handleMany`). A redelivery of a message still waiting takes its place. A message that is not
 * an event has a lane of its own.
 */
export async function followInLanes(s: ConsumerSession, settings: LaneSettings): Promise<void> {
  const session = s.signal;
  const state: Lanes = {
    s,
    settings,
    session,
    widths: widthsOf(settings),
    lanes: new Map(),
    queues: new Map(),
    slotsOf: new Map(),
    backingOff: new Map(),
    busy: 0,
    ending: false,
    allDone: null,
  };
  // Lanes backing off when the session ends are applied at once, which hands their messages back.
  const flush = (): void => endLanes(state);
  session.addEventListener('abort', flush, { once: true });
  for await (const msg of s.messages) {
    if (session.aborted) msg.nak();
    else receive(state, msg);
  }
  // The messages ended (session over): the lanes left finish (nak'ing what a stopped session holds).
  flush();
  session.removeEventListener('abort', flush);
  if (state.lanes.size > 0) await new Promise<void>((resolve) => (state.allDone = resolve));
}

/** The lanes of a session. */
interface Lanes {
  s: ConsumerSession;
  settings: LaneSettings;
  session: AbortSignal;
  widths: Widths;
  /** Lanes with messages not yet applied (queued, in a slot, or backing off). */
  lanes: Map<string, Lane>;
  /** Lanes waiting for a slot, by tenant; the tenants in turn order (the next one first). */
  queues: Map<string, Lane[]>;
  /** Slots each tenant's lanes hold. */
  slotsOf: Map<string, number>;
  backingOff: Map<Lane, NodeJS.Timeout>;
  busy: number;
  ending: boolean;
  allDone: (() => void) | null;
}

/** A message joins its lane, or starts one that queues for a slot. */
function receive(state: Lanes, msg: ConsumerMessage): void {
  const event = decodeBusEvent(msg.data);
  const key = event ? `e:${state.settings.laneOf(event)}` : `m:${msg.seq}`;
  const lane = state.lanes.get(key);
  if (lane) {
    // The lane is queued, backing off or in a slot: it takes this message with its next batch.
    // A message redelivered while it waited (its ack wait ran out) replaces its earlier delivery.
    const earlier = lane.messages.findIndex((m) => m.seq === msg.seq);
    if (earlier === -1) lane.messages.push(msg);
    else lane.messages[earlier] = msg;
    return;
  }
  const fresh: Lane = { key, tenant: event?.tenantId ?? '', messages: [msg], retrying: false };
  state.lanes.set(key, fresh);
  enqueue(state, fresh);
  schedule(state);
}

function enqueue(state: Lanes, lane: Lane): void {
  const queue = state.queues.get(lane.tenant);
  if (queue) queue.push(lane);
  else state.queues.set(lane.tenant, [lane]);
}

/** Free slots take the next batches in turn. */
function schedule(state: Lanes): void {
  while (state.busy < state.widths.slots) {
    const batch = nextBatch(state.queues, state.slotsOf, state.widths);
    if (!batch) break;
    run(state, batch);
  }
  if (state.busy === 0 && state.lanes.size === 0) state.allDone?.();
}

/** A slot applies a batch of one tenant's lanes, then settles each lane and frees itself. */
function run(state: Lanes, batch: Lane[]): void {
  const tenant = batch[0]!.tenant;
  state.busy += 1;
  state.slotsOf.set(tenant, (state.slotsOf.get(tenant) ?? 0) + 1);
  // Taken out at once: a message that arrives meanwhile queues the lane again after this batch.
  const taken = batch.map((lane) => lane.messages.splice(0));
  void handleLaneBatches(state.s, state.settings, taken, batch[0]!.retrying)
    .catch((error: unknown): LaneResult[] => {
      state.s.log.warn({ err: error }, 'a lane failed');
      return taken.map(() => null);
    })
    .then((results) => {
      state.busy -= 1;
      const held = state.slotsOf.get(tenant)! - 1;
      if (held > 0) state.slotsOf.set(tenant, held);
      else state.slotsOf.delete(tenant);
      batch.forEach((lane, k) => settle(state, lane, results[k] ?? null));
      schedule(state);
    });
}

/** After its slot: a lane done queues again for messages that came meanwhile, a failed one backs off. */
function settle(state: Lanes, lane: Lane, result: LaneResult): void {
  if (result) return backOff(state, lane, result);
  lane.retrying = false;
  if (lane.messages.length > 0) enqueue(state, lane);
  else state.lanes.delete(lane.key);
}

/** A lane whose message failed waits out its backoff without a slot, then queues again. */
function backOff(state: Lanes, lane: Lane, result: NonNullable<LaneResult>): void {
  if (state.ending || state.session.aborted) {
    // The session is over: what is left goes back to JetStream (redelivered to the next one).
    for (const msg of result.remaining) msg.nak();
    return settle(state, lane, null);
  }
  lane.messages.unshift(...result.remaining);
  lane.retrying = true;
  const timer = setTimeout(() => {
    state.backingOff.delete(lane);
    enqueue(state, lane);
    schedule(state);
  }, result.retryInMs);
  state.backingOff.set(lane, timer);
}

function endLanes(state: Lanes): void {
  state.ending = true;
  for (const [lane, timer] of state.backingOff) {
    clearTimeout(timer);
    enqueue(state, lane);
  }
  state.backingOff.clear();
  schedule(state);
}

/**
 * The lanes the next free slot takes: those of the first tenant in turn that holds fewer than
 * `perTenant` slots, up to `perBatch` of them (a retrying lane alone); that tenant goes to the back.
 */
function nextBatch(queues: Map<string, Lane[]>, slotsOf: Map<string, number>, widths: Widths): Lane[] | null {
  for (const [tenant, queue] of queues) {
    if ((slotsOf.get(tenant) ?? 0) >= widths.perTenant) continue;
    queues.delete(tenant);
    const first = queue.shift()!;
    const batch = [first];
    if (!first.retrying) {
      for (let k = 0; k < queue.length && batch.length < widths.perBatch;) {
        if (queue[k]!.retrying) k += 1;
        else batch.push(queue.splice(k, 1)[0]!);
      }
    }
    if (queue.length > 0) queues.set(tenant, queue);
    return batch;
  }
  return null;
}
