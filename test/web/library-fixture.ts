import type { Track } from '@catalog/contracts';
import type { ApiClient } from '@catalog/testing';
import { eventually } from '@catalog/testing';
import { confirmUpload } from '../support/api.js';

/** A tenant of both products whose key may read, upload, analyse and search, with credits for analyses. */
export async function libraryTenant(api: ApiClient): Promise<{ orgId: string; key: string }> {
  const { orgId, key } = await api.tenant({
    name: 'Web Radio',
    products: ['catalog', 'library'],
    permissions: ['catalog:api', 'catalog:analysis', 'library:api'],
  });
  const grant = await api.admin('POST', `/admin/v1/organizations/${orgId}/credits`, { amount: 100, reason: 'web tests' });
  if (grant.status !== 201) throw new Error(`grant credits: ${grant.status}`);
  return { orgId, key };
}

/** A song with one AUDIO version whose file (`wav`) is uploaded and confirmed; its entity id. */
export async function songWithAudio(api: ApiClient, key: string, song: { title: string; artist: string }, wav: Buffer): Promise<string> {
  const entity = await api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', ...song } });
  const version = await api.request('POST', `/api/v1/catalog/entities/${entity.body.id}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'song.wav', contentType: 'audio/wav', size: wav.length } },
      label: 'Radio edit',
      versionType: 'radio_edit',
    },
  });
  if (version.status !== 201) throw new Error(`create version: ${version.status} ${JSON.stringify(version.body)}`);
  const put = await fetch(version.body.upload.url, { method: 'PUT', headers: version.body.upload.headers, body: new Uint8Array(wav) });
  if (put.status >= 300) throw new Error(`upload: ${put.status}`);
  const confirm = await confirmUpload(api, key, version.body.asset.id);
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status}`);
  return entity.body.id as string;
}

/** Runs the waveform and cue-point analyses of the entity and waits until the library's track shows both. */
export async function analysedInLibrary(api: ApiClient, key: string, entityId: string): Promise<void> {
  for (const type of ['waveform', 'cue_points']) {
    const job = await api.request('POST', '/api/v1/catalog/analyses', { key, body: { type, source: { entityId } } });
    if (job.status !== 202) throw new Error(`analysis ${type}: ${job.status} ${JSON.stringify(job.body)}`);
  }
  await eventually(
    async () => {
      const track = await api.request<Track | null>('GET', `/api/v1/library/tracks/${entityId}`, { key });
      const analysis = track.body?.analysis;
      return analysis?.waveform?.available && analysis?.cuePoints ? true : undefined;
    },
    90_000,
    250,
  );
}
