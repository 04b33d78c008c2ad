import type { AppliedCuePointMarkers, Marker } from '@catalog/contracts';
import { callRpc, type CallContext, type RpcCallSettings } from '@catalog/platform';

/** The catalog's answer to markers it was asked to apply: its outcome, or its error (a status below 500 is definite). */
export type MarkersReply = { ok: true; outcome: AppliedCuePointMarkers['outcome'] } | { ok: false; status: number; error: string };

/** The catalog's `applyCuePointMarkers` (decision 0088), and the longest its answer may take. */
export interface CatalogMarkers {
  timeoutMs: number;
  apply(call: CallContext, body: { versionId: string; markers: Marker[] }): Promise<MarkersReply>;
}

export function catalogMarkers(rpc: RpcCallSettings): CatalogMarkers {
  return {
    timeoutMs: rpc.timeoutMs ?? 10_000,
    async apply(call, body) {
      const reply = await callRpc(rpc, 'catalog', 'applyCuePointMarkers', { params: {}, query: {}, body }, call);
      if (reply.ok) return { ok: true, outcome: (reply.body as AppliedCuePointMarkers).outcome };
      return { ok: false, status: reply.error.status, error: `${reply.error.code}: ${reply.error.message}` };
    },
  };
}
