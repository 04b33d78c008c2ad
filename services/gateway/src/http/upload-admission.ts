import type { IncomingMessage } from 'node:http';
import { AppError, bodyTimeout } from '@catalog/platform';

/** Limits of the uploads the gateway relays to the asset listener (decision 0148). */
export interface UploadLimits {
  /** Uploads of one tenant this gateway relays at once; beyond it 429 `too_many_uploads`. */
  maxPerTenant: number;
  /** Longest the body of a relayed upload may bring no byte while it is read; then 408 `body_timeout`. */
  idleMs: number;
}

/** The seconds a client refused for its tenant's cap is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The tenant an fs upload URL names: the first segment of its object key
 * (`/uploads/<tenant>/<asset>/<upload>`), which the URL's signature covers. The gateway does not
 * check the signature (the asset listener does, before it reads any of the body), so a forged
 * path only counts against the tenant it names until the listener's 403, a moment later.
 */
export function uploadTenant(target: URL): string {
  return target.pathname.split('/')[2]?.toLowerCase() ?? '';
}

/** 429 `too_many_uploads`, with `Retry-After`. */
function tooManyUploads(limit: number): AppError {
  return new AppError(
    429,
    'too_many_uploads',
    `this organisation already has ${limit} uploads in progress through this gateway; try again when one has ended`,
    { limit, retryAfterSeconds: RETRY_AFTER_SECONDS },
  );
}

/**
 * Counts the uploads in flight of each tenant, so that one tenant's uploads, however slow, hold
 * at most `maxPerTenant` of the gateway's upstream connections and every other tenant's uploads
 * still go through.
 */
export function uploadSlots(maxPerTenant: number): { take(tenant: string): () => void } {
  const inFlight = new Map<string, number>();
  return {
    /** A slot for one upload of `tenant` (429 when it has none left): returns its release, which may be called more than once. */
    take(tenant) {
      const taken = inFlight.get(tenant) ?? 0;
      if (taken >= maxPerTenant) throw tooManyUploads(maxPerTenant);
      inFlight.set(tenant, taken + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(tenant) ?? 1) - 1;
        if (left > 0) inFlight.set(tenant, left);
        else inFlight.delete(tenant);
      };
    },
  };
}

/** 408 `body_timeout`: the upload brought no byte for `idleMs`. */
export function uploadIdle(idleMs: number): AppError {
  return bodyTimeout(`no byte of the upload arrived for ${idleMs} ms`, { idleMs });
}

/**
 * Calls `idle` once when `body` brings no byte for `idleMs` while it is read. Time during which
 * the body is paused (back-pressure: the asset listener or the disk is the slow side), or after
 * its end (the asset listener is storing it), does not count. Returns the function that stops
 * watching. Listening does not change how the body flows.
 */
export function watchUploadIdle(body: IncomingMessage, idleMs: number, idle: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  if (body.readableEnded) return () => undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(expire, idleMs);
    timer.unref();
  };
  function expire(): void {
    if (body.isPaused() || body.readableFlowing !== true) return arm();
    stop();
    idle();
  }
  function stop(): void {
    clearTimeout(timer);
    body.off('data', arm);
    body.off('resume', arm);
    body.off('end', stop);
  }
  body.on('data', arm);
  body.on('resume', arm);
  body.once('end', stop);
  arm();
  return stop;
}
