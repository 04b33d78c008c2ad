import type { AssetKind } from '@catalog/contracts';

/**
 * Content types accepted per kind. The kind follows from the type's top level (audio/* → AUDIO,
 * image/* → ARTWORK, video/* → VIDEO); within it only formats a broadcast chain handles are taken.
 */
export const ALLOWED_CONTENT_TYPES: Record<AssetKind, readonly string[]> = {
  AUDIO: [
    'audio/mpeg',
    'audio/mp3',
    'audio/wav',
    'audio/wave',
    'audio/x-wav',
    'audio/vnd.wave',
    'audio/flac',
    'audio/x-flac',
    'audio/aac',
    'audio/mp4',
    'audio/x-m4a',
    'audio/ogg',
    'audio/opus',
    'audio/aiff',
    'audio/x-aiff',
    'audio/webm',
  ],
  ARTWORK: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/tiff', 'image/avif'],
  VIDEO: ['video/mp4', 'video/quicktime', 'video/webm', 'video/x-matroska', 'video/mpeg'],
};

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
