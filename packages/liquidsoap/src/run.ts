import { consumeEventPages, consumeEvents, createCatalogClient, cursorKey, fileCursorStore } from '@catalog/sdk';
import { catalogReads } from './catalog.js';
import type { ConnectorConfig } from './config.js';
import { playlistConnector } from './connector.js';
import { FOLLOWED_TYPES, songOfEvent } from './feed.js';
import { reportHealth } from './health.js';
import type { Log } from './log.js';
import { mediaFolder } from './media.js';

/**
 * The connector's life: reconcile from the resource APIs, then follow the feed from its saved
 * cursor (a restart resumes there; files already held are not downloaded again), and report
 * health every heartbeat, until `signal` aborts.
 */
export async function runConnector(config: ConnectorConfig, log: Log, signal: AbortSignal): Promise<void> {
  const client = createCatalogClient({ baseUrl: config.catalogUrl, apiKey: config.apiKey, userAgent: 'catalog-liquidsoap/0.1' });
  const reads = catalogReads(client, config.integrationId);
  const connector = playlistConnector({
    client,
    reads,
    media: mediaFolder(client, config.mediaDir),
    integrationId: config.integrationId,
    playlist: config.playlist,
    targetLufs: config.targetLufs,
    log,
  });
  const store = fileCursorStore(config.stateDir);
  const feed = { client, name: `liquidsoap-${config.integrationId}`, store, types: FOLLOWED_TYPES, signal };
  // A first start takes the feed's place before reading the resources, so nothing written between
  // is missed, and the history before is not replayed; a restart resumes from its saved cursor.
  if ((await store.load(cursorKey(feed.name, feed.types))) === null) {
    for await (const page of consumeEventPages({ ...feed, stopWhenCaughtUp: true }))
      log.info('feed skipped', { events: page.events.length });
  }
  await connector.reconcile();
  log.info('reconciled', { assigned: connector.status().assigned });

  const heartbeat = async () => {
    const seconds = (await reads.heartbeatSeconds()) ?? config.defaultHeartbeatSeconds;
    await reportHealth(client, config.integrationId, connector.status());
    return seconds;
  };
  const beats = (async () => {
    while (!signal.aborted) {
      let seconds = config.defaultHeartbeatSeconds;
      try {
        seconds = await heartbeat();
      } catch (error) {
        log.warn('health report failed', { error: String(error) });
      }
      // Reported a little more often than the heartbeat asks, so one late report is not a miss.
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, Math.max(1000, seconds * 800));
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
      });
    }
  })();

  const relevance = { integrationId: config.integrationId, isAssigned: connector.isAssigned };
  for await (const event of consumeEvents(feed)) {
    const entityId = songOfEvent(event, relevance);
    if (entityId !== null) await connector.refresh(entityId);
  }
  await beats;
}
