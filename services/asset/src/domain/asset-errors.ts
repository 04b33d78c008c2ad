import { AppError, conflict } from '@catalog/platform';
import type { AssetRow } from '../persistence/assets.js';

/** The 409s of the asset domain and the failure messages an asset records. */

export const UNREADABLE_AUDIO_MESSAGE =
  'the file is not audio that ffprobe can read in an accepted format (MP3, WAV, FLAC, AAC, M4A, Ogg/Opus, AIFF, WebM)';

export function failedError(row: AssetRow): AppError {
  return conflict(
    'asset_failed',
    `the upload was rejected: ${row.failure_message ?? row.failure_code}; request a new upload target with POST /api/v1/catalog/assets/${row.id}/upload`,
    {
      assetId: row.id,
      status: row.status,
      reason: row.failure_code,
    },
  );
}

export function expiredError(row: AssetRow): AppError {
  return conflict('asset_expired', 'the asset has expired and its file was removed', { assetId: row.id, reason: row.failure_code });
}

export function uploadInProgress(): AppError {
  return conflict(
    'upload_in_progress',
    'the uploaded file changed while it was being confirmed; confirm again when the upload has finished',
  );
}

/** 503 `confirmation_in_progress`: the upload is still being verified; confirming again answers its outcome. */
export function confirmationInProgress(row: AssetRow, retryAfterSeconds: number): AppError {
  return new AppError(
    503,
    'confirmation_in_progress',
    'the upload is still being verified (its bytes are read once, however often it is confirmed); confirm again',
    { assetId: row.id, status: row.status, retryAfterSeconds },
  );
}

export function uploadClosed(): AppError {
  return conflict(
    'upload_closed',
    'this upload target is no longer open: the asset was confirmed or expired, or a newer upload target was issued',
  );
}
