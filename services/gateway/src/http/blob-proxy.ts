import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Next } from 'koa';
import type { ServiceName } from '@catalog/contracts';
import {
  AppError,
  callRpc,
  cutOffRequest,
  NO_TENANT,
  refuseWithLingeringClose,
  type HttpContext,
  type RpcCallSettings,
} from '@catalog/platform';
import { uploadUpstreamUrl } from './request-target.js';
import { uploadIdle, uploadSlots, uploadTenant, watchUploadIdle, type UploadLimits } from './upload-admission.js';
import { declaredUploadLength, uploadTooLong, watchUploadLength } from './upload-length.js';
import { forward, relayEarlyAnswer, relayResponse, upstreamFailure, type UpstreamTimeouts } from './upstream.js';

export interface BlobProxySettings {
  /** The bus, for `locateAssetListener` (its timeout is the longest wait for the answer). */
  rpc: RpcCallSettings;
  /** Fixed base URL of the asset service's listener; unset: asked over NATS for every upload. */
  assetHttpUrl?: string | undefined;
  /** Connect and idle limits of every request to an asset listener. */
  upstream: UpstreamTimeouts;
  /** Uploads in flight per tenant, and how long an upload may bring no byte. */
  uploads: UploadLimits;
}

export interface BlobProxy {
  /** Koa middleware: `PUT /uploads/…` (signed fs upload URLs) streamed to an asset listener. */
  uploads(ctx: HttpContext, next: Next): Promise<void>;
  /** Streams the response of `service`'s signed download location to the client. */
  download(ctx: HttpContext, reply: unknown, service: ServiceName): Promise<void>;
}

export const UPLOAD_PREFIX = '/uploads/';

function unavailable(): AppError {
  return new AppError(503, 'service_unavailable', 'the asset service is not available');
}

/**
 * 413 for an upload longer than its target declared (decision 0116), found before it goes
 * upstream or while it streams: the gateway answers it itself, without waiting for the asset
 * listener's answer. The rest of the body is read and dropped, within bounds, before the
 * connection closes (a lingering close, decision 0124).
 */
function refuseLongUpload(ctx: HttpContext, declared: number): Promise<void> {
  return refuseWithLingeringClose(ctx, uploadTooLong(declared));
}

/** The request id and those of the client's headers `names` that are set: what goes upstream. */
function passedHeaders(ctx: HttpContext, names: readonly string[]): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'x-request-id': ctx.state.requestId };
  for (const name of names) {
    const value = ctx.get(name);
    if (value) headers[name] = value;
  }
  return headers;
}

/** The signed download location of a `{location}` answer of `service`: an http(s) URL, or a 502. */
function downloadLocation(reply: unknown, service: ServiceName): URL {
  const location = (reply as { location?: unknown } | null)?.location;
  const url = typeof location === 'string' && URL.canParse(location) ? new URL(location) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new AppError(502, 'bad_gateway', `the ${service} service answered without a download location`);
  }
  return url;
}

/**
 * Relays the body of an upload to `target` and resolves with the listener's answer; or answers the
 * client itself (413 too long, 408 idle, a failure upstream) and resolves with null. `release`
 * frees the upload's slot once the listener has answered or the upload has ended.
 */
async function relayUpload(
  ctx: HttpContext,
  target: URL,
  declared: number | null,
  settings: BlobProxySettings,
  release: () => void,
): Promise<IncomingMessage | null> {
  const headers = passedHeaders(ctx, ['content-type', 'content-length', 'transfer-encoding']);
  // Aborted with the reason the gateway ends the upload for: too long (413) or idle (408).
  const ended = new AbortController();
  try {
    const answer = forward(target, 'PUT', headers, ctx.req, settings.upstream, ended.signal);
    const stopLength = declared === null ? undefined : watchUploadLength(ctx.req, declared, () => ended.abort(uploadTooLong(declared)));
    const stopIdle = watchUploadIdle(ctx.req, settings.uploads.idleMs, () => ended.abort(uploadIdle(settings.uploads.idleMs)));
    return await answer.finally(() => {
      stopLength?.();
      stopIdle();
      release();
    });
  } catch (error) {
    if (ended.signal.aborted) {
      const reason = ended.signal.reason as AppError;
      // Nothing more is coming from an idle client: answer and close at once.
      if (reason.status === 408) cutOffRequest(ctx, reason);
      else await refuseLongUpload(ctx, declared!);
      return null;
    }
    if (!ctx.req.complete && ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || ctx.req.destroyed)) {
      throw new AppError(400, 'upload_incomplete', 'the upload was interrupted before it was complete');
    }
    if (!ctx.req.complete) {
      await refuseWithLingeringClose(ctx, upstreamFailure(error, 'asset'));
      return null;
    }
    throw upstreamFailure(error, 'asset');
  }
}

/**
 * Streams blob traffic between clients and the asset service's HTTP listener, never holding a
 * file in memory (Node's stream back-pressure paces both sides): uploads to signed fs URLs under
 * the public base (`PUT /uploads/…`, passed to the listener's origin with their checked path and
 * query, whose signature the asset service checks), and downloads from the short-lived signed
 * locations the asset service returns. Every upstream request has connect and idle limits; a
 * tenant has at most `uploads.maxPerTenant` uploads in flight, and an upload whose body brings no
 * byte for `uploads.idleMs` is ended with 408 (decision 0148). URLs are never logged (the access log shows the path only; the signature is in the query).
 */
export function blobProxy(settings: BlobProxySettings): BlobProxy {
  async function listener(requestId: string): Promise<string> {
    if (settings.assetHttpUrl) return settings.assetHttpUrl;
    const call = { tenantId: NO_TENANT, keyId: null, sourceSystem: 'gateway', requestId };
    const reply = await callRpc(settings.rpc, 'asset', 'locateAssetListener', { params: {}, query: {}, body: null }, call).catch(
      () => null,
    );
    const url = reply?.ok ? (reply.body as { url?: unknown } | null)?.url : undefined;
    if (typeof url !== 'string' || !URL.canParse(url)) throw unavailable();
    return url;
  }

  const slots = uploadSlots(settings.uploads.maxPerTenant);

  return {
    async uploads(ctx, next) {
      if (!ctx.path.startsWith(UPLOAD_PREFIX)) return next();
      if (ctx.method !== 'PUT') {
        ctx.set('Allow', 'PUT');
        throw new AppError(405, 'method_not_allowed', 'send the file with PUT');
      }
      const target = uploadUpstreamUrl(ctx.req.url ?? '', await listener(ctx.state.requestId));
      const declared = declaredUploadLength(target);
      if (declared !== null && Number(ctx.get('content-length') || 0) > declared) return refuseLongUpload(ctx, declared);
      let release: () => void;
      try {
        release = slots.take(uploadTenant(target));
      } catch (error) {
        return refuseWithLingeringClose(ctx, error);
      }
      const upstream = await relayUpload(ctx, target, declared, settings, release);
      if (!upstream) return;
      // A refusal while the upload is still arriving: answered, then a lingering close (decision 0124).
      if (!ctx.req.complete) return relayEarlyAnswer(ctx, upstream);
      await relayResponse(ctx, upstream);
    },

    async download(ctx, reply, service) {
      const location = downloadLocation(reply, service);
      const headers = passedHeaders(ctx, ['range', 'if-range', 'if-none-match']);
      let upstream: IncomingMessage;
      try {
        upstream = await forward(location, 'GET', headers, null, settings.upstream);
      } catch (error) {
        throw upstreamFailure(error, service);
      }
      await relayResponse(ctx, upstream);
    },
  };
}
