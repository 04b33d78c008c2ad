import { VERSION_TYPES_BY_KIND, type AssetKind, type StoredAssetKind } from '@catalog/contracts';
import { badRequest, unsupportedMediaType } from '@catalog/platform';

const TOP_LEVEL_KIND: Record<string, AssetKind> = { audio: 'AUDIO', image: 'ARTWORK', video: 'VIDEO' };

/** The kind a content type belongs to by its top-level type (audio/*, image/*, video/*), or null. */
function kindOfContentType(contentType: string): AssetKind | null {
  return TOP_LEVEL_KIND[contentType.trim().toLowerCase().split('/')[0] ?? ''] ?? null;
}

/**
 * The kind of a new version: the given one, or the one the content type implies. A content type
 * that is no audio, image or video, or that belongs to another kind than the given one, is 415
 * (which formats of a kind are accepted is the asset service's allow-list, also 415).
 */
export function resolveKind(given: AssetKind | undefined, contentType: string): AssetKind {
  const implied = kindOfContentType(contentType);
  if (implied === null) {
    throw unsupportedMediaType(`content type ${contentType} is not audio, image or video`, {
      contentType,
      ...(given ? { kind: given } : {}),
    });
  }
  if (given !== undefined && given !== implied) {
    throw unsupportedMediaType(`content type ${contentType} is not accepted for a ${given} version`, {
      contentType,
      kind: given,
      contentTypeKind: implied,
    });
  }
  return implied;
}

/** The kind of a version whose file is `asset`; 415 for a file no version takes (an import job's DATA, decision 0134). */
export function versionKindOfAsset(asset: { id: string; kind: StoredAssetKind; contentType: string }): AssetKind {
  if (asset.kind === 'DATA') {
    throw unsupportedMediaType(`the asset is a ${asset.contentType} file (DATA); it cannot be the file of a version`, {
      assetId: asset.id,
      contentType: asset.contentType,
      contentTypeKind: asset.kind,
    });
  }
  return asset.kind;
}

/** 400 unless `versionType` is one of the types of `kind`. */
export function checkVersionType(kind: AssetKind, versionType: string): void {
  const allowed: readonly string[] = VERSION_TYPES_BY_KIND[kind];
  if (!allowed.includes(versionType)) {
    throw badRequest('invalid_body', `version type ${versionType} does not apply to ${kind} versions`, {
      fields: [{ location: 'body', path: '/versionType', message: `must be one of ${allowed.join(', ')} for ${kind}` }],
      allowed,
    });
  }
}
