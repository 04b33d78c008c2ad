import type { ApiClient } from '@catalog/testing';
import { confirmUpload } from './api.js';

/** Ids of a version whose uploaded file was confirmed ONLINE. */
export interface ConfirmedVersion {
  entityId: string;
  versionId: string;
  assetId: string;
}

/**
 * An entity of `entityType` with one AUDIO version whose file (`wav`) was uploaded and confirmed:
 * the catalog then records `version.analyses_requested` with the entity type's automatic analyses.
 * `writeId` is how the requests' paths write the entity's and the asset's ids (as they are by default).
 */
export async function confirmedVersion(
  api: ApiClient,
  wav: Buffer,
  options: { key: string; entityType: string; dmrn?: string; title?: string; writeId?: (id: string) => string },
): Promise<ConfirmedVersion> {
  const { key, entityType, dmrn, title = 'Auto', writeId = (id: string) => id } = options;
  const references = dmrn === undefined ? {} : { externalReferences: { dmrn } };
  const entity = (await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: entityType, title, ...references } })).body;
  const version = await api.request('POST', `/api/v1/catalog/entities/${writeId(entity.id)}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length } },
      label: 'Edit',
      versionType: 'radio_edit',
    },
  });
  expect(version.status).toBe(201);
  expect((await fetch(version.body.upload.url, { method: 'PUT', headers: version.body.upload.headers, body: wav })).status).toBe(200);
  expect((await confirmUpload(api, key, writeId(version.body.asset.id))).status).toBe(200);
  return { entityId: entity.id as string, versionId: version.body.id as string, assetId: version.body.asset.id as string };
}
