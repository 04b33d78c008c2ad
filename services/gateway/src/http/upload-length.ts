import type { IncomingMessage } from 'node:http';
import { payloadTooLarge, type AppError } from '@catalog/platform';

/**
 * The length an upload target declares: `len` of its signed query (the size given when the
 * upload was asked for), or null when it names none. The gateway does not check the signature
 * (the asset service does): a client that changes `len` only gets its own upload refused.
 */
export function declaredUploadLength(target: URL): number | null {
  const len = target.searchParams.get('len');
  return len !== null && /^[0-9]{1,15}$/.test(len) ? Number(len) : null;
}

/** 413 `payload_too_large`: the upload is longer than its target declared. */
export function uploadTooLong(limitBytes: number): AppError {
  return payloadTooLarge(`the upload is longer than the ${limitBytes} bytes its URL was made for`, { limitBytes });
}

/**
 * Counts the bytes of `body` as they arrive and calls `exceeded` once, as soon as there are more
 * than `limitBytes` (a chunked body says no length before it is sent). Returns the function that stops counting. Listening does not change how the
 * body flows: whoever reads it keeps pausing and resuming it.
 */
export function watchUploadLength(body: IncomingMessage, limitBytes: number, exceeded: () => void): () => void {
  let received = 0;
  const count = (chunk: Buffer): void => {
    received += chunk.length;
    if (received <= limitBytes) return;
    stop();
    exceeded();
  };
  function stop(): void {
    body.off('data', count);
  }
  body.on('data', count);
  return stop;
}
