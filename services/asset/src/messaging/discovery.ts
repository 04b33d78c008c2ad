import { assetListenerSubject } from '@catalog/contracts';
import type { Logger, NatsConnection } from '@catalog/platform';

/**
 * Answers the gateway's question "where is an asset listener?" with this replica's internal URL.
 * Replicas share a queue group, so each question reaches one of them.
 */
export function answerListenerDiscovery(nc: NatsConnection, prefix: string, url: string, logger: Logger): () => Promise<void> {
  const subscription = nc.subscribe(assetListenerSubject(prefix), {
    queue: 'asset',
    callback: (error, msg) => {
      if (error) {
        logger.warn({ err: error }, 'listener discovery subscription failed');
        return;
      }
      msg.respond(JSON.stringify({ url }));
    },
  });
  return async () => {
    subscription.unsubscribe();
  };
}
