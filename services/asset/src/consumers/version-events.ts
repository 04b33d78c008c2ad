import { isUuid, type BusEvent } from '@catalog/platform';
import { releaseAsset, type ReleaseDeps, type ReleaseOutcome } from '../domain/release.js';

/** `releaseAsset` for a `version.deleted` event of the catalog (on its own or with its entity). */
export async function releaseVersionAsset(deps: ReleaseDeps, event: BusEvent): Promise<ReleaseOutcome> {
  const versionId = event.resourceId;
  const assetId = event.data.assetId;
  if (event.type !== 'version.deleted' || event.resourceKind !== 'version' || !isUuid(versionId) || !isUuid(assetId)) return 'ignored';
  return releaseAsset(deps, { tenantId: event.tenantId, assetId, versionId, sourceSystem: event.sourceSystem });
}
