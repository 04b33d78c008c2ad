import { ALLOWED_CONTENT_TYPES, type StoredAssetKind } from '@catalog/contracts';

/** Content types accepted per kind: one list, in the contracts, which the OpenAPI document shows. */
export { ALLOWED_CONTENT_TYPES };

/**
 * The FFmpeg demuxers ffprobe may use on an AUDIO upload (its `-format_whitelist`, decision 0059):
 * those of the accepted audio content types above (MP3; WAV; FLAC; AAC in ADTS; M4A/MP4 is `mov`;
 * Ogg/Opus; AIFF; WebM is `matroska`). Anything else (an HLS playlist, concat lists, images
 * posing as audio) is refused before it is read, whatever the declared content type.
 */
export const AUDIO_FORMATS: readonly string[] = ['mp3', 'wav', 'flac', 'aac', 'mov', 'ogg', 'aiff', 'matroska'];

const TOP_LEVEL: Record<string, StoredAssetKind> = { audio: 'AUDIO', image: 'ARTWORK', video: 'VIDEO' };

/** The content types of DATA files (an import job's JSON Lines or CSV, decision 0134): by their exact type. */
const DATA_TYPES: ReadonlySet<string> = new Set(ALLOWED_CONTENT_TYPES.DATA);

export function normalizeContentType(contentType: string): string {
  return contentType.trim().toLowerCase();
}

/** The kind of a content type; null when the type is not accepted. */
export function kindOf(contentType: string): StoredAssetKind | null {
  const type = normalizeContentType(contentType);
  if (DATA_TYPES.has(type)) return 'DATA';
  const kind = TOP_LEVEL[type.split('/')[0] ?? ''];
  return kind && ALLOWED_CONTENT_TYPES[kind].includes(type) ? kind : null;
}
