import { ALLOWED_CONTENT_TYPES, type AssetKind } from '@catalog/contracts';

/** Content types accepted per kind: one list, in the contracts, which the OpenAPI document shows. */
export { ALLOWED_CONTENT_TYPES };

const TOP_LEVEL: Record<string, AssetKind> = { audio: 'AUDIO', image: 'ARTWORK', video: 'VIDEO' };

export function normalizeContentType(contentType: string): string {
  return contentType.trim().toLowerCase();
}

/** The kind of a content type; null when the type is not accepted. */
export function kindOf(contentType: string): AssetKind | null {
  const type = normalizeContentType(contentType);
  const kind = TOP_LEVEL[type.split('/')[0] ?? ''];
  return kind && ALLOWED_CONTENT_TYPES[kind].includes(type) ? kind : null;
}
