import type { NatsConnection } from '@nats-io/transport-node';

/** The parts of nats-core's protocol handler this relies on (not public API: checked before use). */
interface ProtocolInternals {
  flushPending: () => void;
  close: (err?: Error) => Promise<void>;
}

/**
 * Makes the NATS client write what it has to send once per turn of the event loop instead of once
 * per microtask checkpoint (decision 0072). The client queues every message in a buffer and
 * writes the buffer to the socket in a microtask; a busy service handles each incoming HTTP request
 * or NATS message in its own I/O callback, so each request or reply cost a socket write of its
 * own. Deferred to `setImmediate` (the end of the current I/O phase), the messages of every request
 * handled in that phase leave in one write. Order is kept (one buffer); the delay is the rest of
 * the phase. Pending bytes are written before the connection closes. Does nothing if the client's
 * internals are not the expected ones (a future version): the client then works as it came.
 */
export function coalesceWrites(nc: NatsConnection): boolean {
  const protocol = (nc as unknown as { protocol?: Partial<ProtocolInternals> }).protocol;
  if (!protocol || typeof protocol.flushPending !== 'function' || typeof protocol.close !== 'function') return false;
  const flushNow = protocol.flushPending.bind(protocol);
  const close = protocol.close.bind(protocol);
  let scheduled = false;
  protocol.flushPending = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      flushNow();
    });
  };
  protocol.close = (err?: Error) => {
    flushNow();
    return close(err);
  };
  return true;
}
