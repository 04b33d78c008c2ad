import { unwrap, type CatalogClient } from '@catalog/sdk';
import type { ConnectorStatus } from './connector.js';

/** What the heartbeat says: healthy, or degraded naming how many songs failed and the first reason. */
export function healthOf(status: ConnectorStatus): { status: 'healthy' | 'degraded'; message: string } {
  if (status.failed.size === 0) return { status: 'healthy', message: `${status.assigned} songs on the playlist` };
  const [entityId, reason] = [...status.failed][0]!;
  const message = `${status.failed.size} of ${status.assigned} songs failed; ${entityId}: ${reason}`;
  return { status: 'degraded', message: message.slice(0, 500) };
}

export async function reportHealth(client: CatalogClient, integrationId: string, status: ConnectorStatus): Promise<void> {
  await unwrap(
    client.api.POST('/api/v1/catalog/integrations/{id}/health', { params: { path: { id: integrationId } }, body: healthOf(status) }),
  );
}
