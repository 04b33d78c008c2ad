import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';

export type { NatsConnection } from '@nats-io/transport-node';

export interface BusSettings {
  url: string;
  name: string;
  logger: Logger;
}

/** Connects to NATS and keeps reconnecting forever; connection status changes are logged. */
export async function connectBus(settings: BusSettings): Promise<NatsConnection> {
  const nc = await connect({
    servers: settings.url.split(','),
    name: settings.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    // Otherwise every request captures a stack trace up front for a timeout that rarely happens
    // (about 5% of the gateway's CPU); our errors carry the operation and request id instead.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        settings.logger.warn({ nats: status.type, server: 'server' in status ? status.server : undefined }, 'nats connection status');
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
