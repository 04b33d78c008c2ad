import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AppError, callRpc, replyValue, type CallContext, type RpcCallSettings } from '@catalog/platform';

/** A file of the asset service copied to the worker's disk; `remove()` deletes it. */
export interface LocalFile {
  path: string;
  remove(): Promise<void>;
}

export interface FileFetcher {
  /** Copies the asset's file to a temporary file (the caller's tenant context), or rejects. */
  fetch(call: CallContext, assetId: string, signal: AbortSignal): Promise<LocalFile>;
}

/**
 * Reads files through the asset service (decision 0087): `downloadAsset` answers a signed location
 * (404 unknown, 409 not ONLINE), whose body is streamed to a file of its own under `workDir`, within
 * `timeoutMs`. The analyzers then read the file as often as they need.
 */
export function fileFetcher(rpc: RpcCallSettings, settings: { workDir: string; timeoutMs: number }): FileFetcher {
  return {
    async fetch(call, assetId, signal) {
      const reply = await callRpc(rpc, 'asset', 'downloadAsset', { params: { id: assetId }, query: {}, body: null }, call);
      const { location } = replyValue<{ location: string }>(reply);
      const dir = await mkdtemp(join(settings.workDir, 'analysis-'));
      const remove = () => rm(dir, { recursive: true, force: true });
      try {
        const path = join(dir, 'file');
        const response = await fetch(location, { signal: AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]) });
        if (!response.ok || !response.body) {
          throw new AppError(503, 'file_unavailable', `the file store answered ${response.status} for the file`, {
            status: response.status,
          });
        }
        await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(path));
        return { path, remove };
      } catch (error) {
        await remove();
        throw error;
      }
    },
  };
}
