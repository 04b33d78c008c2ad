import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../observability/logger.js';
import { coalesceWrites } from './coalesce-writes.js';
import { setStreamReplicas } from './jetstream.js';

export type { NatsConnection } from '@nats-io/transport-node';

export interface BusSettings {
  url: string;
  name: string;
  logger: Logger;
  /** The NATS user (decision 0055): the service's name; unset on a server without authorization. */
  user?: string;
  password?: string;
  /** Replicas of the streams created or reconciled through this connection (`JETSTREAM_REPLICAS`); default 1. */
  streamReplicas?: number;
}

/**
 * Where the replies to a user's requests arrive. Each user receives on `_INBOX.<user>.>` only
 * (the server's permissions say so), so no other client can read its replies.
 */
function busInboxPrefix(user: string | undefined): string {
  if (user === undefined) return '_INBOX';
  if (!/^[A-Za-z0-9_-]+$/.test(user)) throw new Error(`invalid NATS user "${user}": letters, digits, _ and - only`);
  return `_INBOX.${user}`;
}

/** Connects to NATS and keeps reconnecting forever; connection status changes are logged. */
export async function connectBus(settings: BusSettings): Promise<NatsConnection> {
  const nc = await connect({
    servers: settings.url.split(','),
    name: settings.name,
    ...(settings.user !== undefined ? { user: settings.user, pass: settings.password ?? '' } : {}),
    inboxPrefix: busInboxPrefix(settings.user),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    // Otherwise every request captures a stack trace up front for a timeout that rarely happens
    // (about 5% of the gateway's CPU); our errors carry the operation and request id instead.
    noAsyncTraces: true,
  });
  // One socket write per turn of the event loop, not per request: on a busy service each request
  // or reply otherwise costs a socket write (and a system call) of its own (decision 0072).
  coalesceWrites(nc);
  setStreamReplicas(nc, settings.streamReplicas ?? 1, settings.logger);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        // A permissions violation (a subject this user may not use) arrives here as an error.
        const error = 'error' in status ? status.error : undefined;
        settings.logger.warn(
          { nats: status.type, server: 'server' in status ? status.server : undefined, err: error },
          'nats connection status',
        );
      }
    }
  })().catch(() => undefined);
  return nc;
}

/** Answers when the NATS server round-trips a ping; used by readiness checks. */
export async function pingBus(nc: NatsConnection): Promise<void> {
  if (nc.isClosed()) throw new Error('nats connection closed');
  await nc.rtt();
}
