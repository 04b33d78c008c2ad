import type Koa from 'koa';
import type { Next } from 'koa';
import contentDisposition from 'content-disposition';
import {
  AppError,
  badRequest,
  conflict,
  payloadTooLarge,
  refuseWithLingeringClose,
  sendStreamBody,
  type HttpContext,
  type HttpState,
  type Kysely,
} from '@catalog/platform';
import type { BlobStore, FsBlobStore, UrlSigner } from '../persistence/blob/index.js';
import { parseObjectKey, UPLOAD_PATH_PREFIX } from '../domain/object-keys.js';
import { assertUploadOpen, commitUpload } from '../domain/fs-uploads.js';
import type { AssetDb } from '../persistence/tables.js';
import { detachedBody } from './detached-body.js';
import { parseRange } from './range.js';

export interface ListenerDeps {
  db: Kysely<AssetDb>;
  store: BlobStore;
  /** Present with the fs backend only: it receives the uploads. */
  fsStore: FsBlobStore | null;
  signer: UrlSigner;
  maxUploadBytes: number;
}

const BLOB_PATH_PREFIX = '/blobs/';

/**
 * The asset service's HTTP routes, behind the gateway: `PUT /uploads/<key>` (fs backend: signed
 * upload URLs) and `GET /blobs/<key>` (the signed internal download URLs the gateway follows).
 * Each request is authorised by its URL signature alone; the URLs are never logged.
 */
export function mountBlobRoutes(app: Koa<HttpState>, deps: ListenerDeps): void {
  app.use(async (ctx: HttpContext, next: Next) => {
    if (ctx.path.startsWith(UPLOAD_PATH_PREFIX)) {
      if (!deps.fsStore) throw new AppError(404, 'not_found', 'uploads go to the object store with this backend');
      if (ctx.method !== 'PUT') {
        ctx.set('Allow', 'PUT');
        throw new AppError(405, 'method_not_allowed', 'upload with PUT');
      }
      await receiveUpload(ctx, deps, deps.fsStore);
      return;
    }
    if (ctx.path.startsWith(BLOB_PATH_PREFIX)) {
      if (ctx.method !== 'GET') {
        ctx.set('Allow', 'GET');
        throw new AppError(405, 'method_not_allowed', 'download with GET');
      }
      await sendBlob(ctx, deps);
      return;
    }
    await next();
  });
}

function isAbort(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNABORTED';
}

async function receiveUpload(ctx: HttpContext, deps: ListenerDeps, fsStore: FsBlobStore): Promise<void> {
  try {
    const grant = fsStore.verifyUpload(ctx.path, new URLSearchParams(ctx.querystring));
    const ref = parseObjectKey(grant.key)!;
    const sentType = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
    if (sentType !== grant.contentType) {
      throw new AppError(
        403,
        'content_type_mismatch',
        `the upload must be sent with Content-Type: ${grant.contentType}, as in upload.headers`,
      );
    }
    const maxBytes = Math.min(grant.size ?? deps.maxUploadBytes, deps.maxUploadBytes);
    const lengthHeader = ctx.get('content-length');
    const length = lengthHeader === '' ? null : Number(lengthHeader);
    if (length !== null && length > maxBytes) {
      throw payloadTooLarge(`the upload is longer than the ${maxBytes} bytes this target accepts`, { limitBytes: maxBytes });
    }
    if (length !== null && grant.size !== null && length < grant.size) {
      throw badRequest('upload_size_mismatch', `the upload has ${length} bytes, ${grant.size} were declared`, {
        declaredSize: grant.size,
        receivedSize: length,
      });
    }
    await assertUploadOpen(deps, ref);
    const staged = await fsStore.stage(grant.key, detachedBody(ctx.req), {
      maxBytes,
      expectedSize: grant.size,
      expectedSha256: grant.sha256,
    });
    await commitUpload(deps, ref, staged);
    ctx.status = 200;
    ctx.set('ETag', `"${staged.sha256}"`);
    ctx.body = { size: staged.size, checksum: `sha256:${staged.sha256}` };
  } catch (error) {
    // The rest of a rejected body is not wanted: do not keep the connection for another request.
    ctx.set('Connection', 'close');
    if (isAbort(error)) throw badRequest('upload_incomplete', 'the upload was interrupted before it was complete');
    // Refused before the whole body arrived: answer, and let the sender see it (decision 0124).
    if (!ctx.req.complete) return refuseWithLingeringClose(ctx, error);
    throw error;
  }
}

async function sendBlob(ctx: HttpContext, deps: ListenerDeps): Promise<void> {
  const params = deps.signer.verify('GET', ctx.path, new URLSearchParams(ctx.querystring));
  const key = ctx.path.slice(BLOB_PATH_PREFIX.length);
  if (!parseObjectKey(key)) throw new AppError(403, 'invalid_signature', 'the URL signature does not match this request');
  const stat = await deps.store.stat(key);
  if (!stat) throw new AppError(404, 'not_found', 'the file of this asset is not in the blob store');
  if (params.betag && stat.etag !== params.betag) throw conflict('blob_changed', 'the stored file no longer matches the confirmed upload');
  const etag = `"${params.sha256}"`;
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  ctx.set('Content-Disposition', contentDisposition(params.fn ?? 'file'));
  const ifNoneMatch = ctx.get('if-none-match');
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
    ctx.status = 304;
    return;
  }
  const ifRange = ctx.get('if-range');
  const range = !ifRange || ifRange === etag ? parseRange(ctx.get('range') || undefined, stat.size) : null;
  if (range === 'unsatisfiable') {
    ctx.set('Content-Range', `bytes */${stat.size}`);
    throw new AppError(416, 'range_not_satisfiable', `the file has ${stat.size} bytes`, { size: stat.size });
  }
  const stream = await deps.store.read(key, range ?? undefined);
  ctx.type = params.ct ?? 'application/octet-stream';
  if (range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`);
    ctx.length = range.end - range.start + 1;
  } else {
    ctx.status = 200;
    ctx.length = stat.size;
  }
  await sendStreamBody(ctx, stream);
}
