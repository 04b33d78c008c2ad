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

/**
 * The FFmpeg demuxers ffprobe may use on an AUDIO upload (its `-format_whitelist`, decision 0059):
 * those of the accepted audio content types above (MP3; WAV; FLAC; AAC in ADTS; M4A/MP4 is `mov`;
 * Ogg/Opus; AIFF; WebM is `matroska`). Anything else (an HLS playlist, concat lists, images
 * posing as audio) is refused before it is read, whatever the declared content type.
 */
export const AUDIO_FORMATS: readonly string[] = ['mp3', 'wav', 'flac', 'aac', 'mov', 'ogg', 'aiff', 'matroska'];

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
