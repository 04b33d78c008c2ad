import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AppError, callRpc, replyValue, type CallContext, type RpcCallSettings } from '@catalog/platform';

/** An import job's file as it is read: its content type and its bytes, streamed. */
export interface OpenedFile {
  contentType: string;
  bytes: AsyncIterable<Uint8Array>;
}

export interface ImportFiles {
  /** Opens the asset's file for reading (the caller's tenant context), or rejects (404 unknown, 409 not ONLINE). */
  open(call: CallContext, assetId: string, signal: AbortSignal): Promise<OpenedFile>;
}

/**
 * Reads import files through the asset service (decision 0134), as the analysis workers read
 * audio: `downloadAsset` answers a signed location of the asset service's listener, whose body is
 * streamed as it is consumed (bounded memory), within `timeoutMs` for the whole read.
 */
export function importFiles(rpc: RpcCallSettings, settings: { timeoutMs: number }): ImportFiles {
  return {
    async open(call, assetId, signal) {
      const reply = await callRpc(rpc, 'asset', 'downloadAsset', { params: { id: assetId }, query: {}, body: null }, call);
      const { location } = replyValue<{ location: string }>(reply);
      const response = await fetch(location, { signal: AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]) });
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new AppError(503, 'file_unavailable', `the file store answered ${response.status} for the file`, { status: response.status });
      }
      const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      return { contentType, bytes: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>) };
    },
  };
}
