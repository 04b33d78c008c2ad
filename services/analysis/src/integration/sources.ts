import type { AnalysisSource, Asset, ResolvedAnalysisSource } from '@catalog/contracts';
import { AppError, callRpc, conflict, replyValue, type CallContext, type RpcCallSettings } from '@catalog/platform';

/** The file a job analyses, and the entity and version it belongs to (null for an asset source). */
export interface ResolvedSource {
  assetId: string;
  entityId: string | null;
  versionId: string | null;
  dmrn: string | null;
}

/** Resolves a job's source before the job is created, with no transaction open (decision 0058). */
export interface SourceResolver {
  resolve(call: CallContext, source: AnalysisSource): Promise<ResolvedSource>;
}

/**
 * An asset source is read from the asset service (`getAsset`: unknown or another tenant's is 404;
 * it must be AUDIO, 415, and ONLINE, 409); an entity or version source from the catalog
 * (`resolveAnalysisSource`, with the same rules). Their errors reach the client as they are; a
 * service that does not answer is 503/504. Calls carry the caller's context.
 */
export function sourceResolver(rpc: RpcCallSettings): SourceResolver {
  return {
    async resolve(call, source) {
      if (source.assetId !== undefined) {
        const asset = replyValue<Asset>(
          await callRpc(rpc, 'asset', 'getAsset', { params: { id: source.assetId }, query: {}, body: null }, call),
        );
        if (asset.kind !== 'AUDIO') {
          throw new AppError(415, 'source_not_audio', `only audio can be analysed; the asset is ${asset.kind}`, { kind: asset.kind });
        }
        if (asset.status !== 'ONLINE') {
          throw conflict('source_not_online', `the file is ${asset.status}; only ONLINE audio can be analysed`, { status: asset.status });
        }
        return { assetId: asset.id, entityId: null, versionId: null, dmrn: null };
      }
      const body = source.entityId !== undefined ? { entityId: source.entityId } : { versionId: source.versionId! };
      const resolved = replyValue<ResolvedAnalysisSource>(
        await callRpc(rpc, 'catalog', 'resolveAnalysisSource', { params: {}, query: {}, body }, call),
      );
      return resolved;
    },
  };
}
