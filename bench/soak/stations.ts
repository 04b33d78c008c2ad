import { sleep } from '@catalog/platform';
import { apiClient } from '@catalog/testing';
import { requestJson } from '../support/setup.js';

/**
 * The soak's tenants: radio stations with the catalog and the library, each with an operator key
 * (catalog, analyses, library), a playout integration and its connector's key (bound to the
 * integration, as a playout connector's is), credits for an analysis a second, and one standalone
 * audio file that its analyses read.
 */
export interface Station {
  index: number;
  orgId: string;
  key: string;
  connectorKey: string;
  integrationId: string;
  /** The standalone WAV every analysis of this station reads. */
  analysisAssetId: string;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** How long a confirmation is asked again while its verification goes on (a loaded machine takes tens of seconds). */
const CONFIRM_PATIENCE_MS = 300_000;

/**
 * Uploads `bytes` as a file (PUT to its signed target, then confirm) and returns the confirmed
 * asset's status (ONLINE, or FAILED when its bytes were refused). A confirmation still being
 * verified answers 503 confirmation_in_progress with Retry-After: it is asked again, as a client must.
 */
export async function putAndConfirm(
  base: string,
  key: string,
  upload: { url: string; headers: Record<string, string> },
  assetId: string,
  bytes: Buffer,
): Promise<string> {
  const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: bytes, signal: AbortSignal.timeout(60_000) });
  if (!put.ok) throw Object.assign(new Error(`upload: ${put.status} ${await put.text()}`), { status: put.status });
  const deadline = Date.now() + CONFIRM_PATIENCE_MS;
  for (;;) {
    try {
      const asset = await requestJson('POST', `${base}/api/v1/catalog/assets/${assetId}/confirm`, auth(key));
      return asset.status as string;
    } catch (error) {
      if ((error as { status?: number }).status !== 503 || Date.now() > deadline) throw error;
      await sleep(1_000);
    }
  }
}

/** A standalone file of the station (retention standalone), uploaded and confirmed: its asset id. */
export async function standaloneFile(
  base: string,
  key: string,
  file: { name: string; contentType: string; bytes: Buffer },
): Promise<string> {
  const asset = await requestJson('POST', `${base}/api/v1/catalog/assets`, auth(key), {
    retention: 'standalone',
    upload: { filename: file.name, contentType: file.contentType, size: file.bytes.length },
  });
  await putAndConfirm(base, key, asset.upload, asset.assetId, file.bytes);
  return asset.assetId as string;
}

export async function createStations(base: string, adminToken: string, count: number, wav: Buffer, credits: number): Promise<Station[]> {
  const api = apiClient(base, adminToken);
  const stations: Station[] = [];
  for (let index = 0; index < count; index += 1) {
    const orgId = await api.organization({ name: `Soak FM ${index}`, products: ['catalog', 'library'] });
    const { key } = await api.apiKey(orgId, { permissions: ['catalog:api', 'catalog:analysis', 'library:api'] });
    const connector = await api.apiKey(orgId, { name: 'playout connector', permissions: ['catalog:api'] });
    const integration = await requestJson('POST', `${base}/api/v1/catalog/integrations`, auth(key), {
      name: `playout-${index}`,
      kind: 'playout',
      system: 'mAirList',
    });
    const bound = await api.admin('PUT', `/admin/v1/api-keys/${connector.keyId}/source-system`, { integrationId: integration.id });
    if (bound.status !== 200) throw new Error(`binding the connector key: ${bound.status} ${JSON.stringify(bound.body)}`);
    const granted = await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: credits, reason: 'soak' });
    if (granted.status >= 300) throw new Error(`granting credits: ${granted.status} ${JSON.stringify(granted.body)}`);
    const analysisAssetId = await standaloneFile(base, key, { name: 'tone.wav', contentType: 'audio/wav', bytes: wav });
    stations.push({ index, orgId, key, connectorKey: connector.key, integrationId: integration.id as string, analysisAssetId });
  }
  return stations;
}
