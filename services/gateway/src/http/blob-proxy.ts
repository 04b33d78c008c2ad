import { Agent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Next } from 'koa';
import { assetListenerSubject } from '@catalog/contracts';
import { AppError, relayChunks, releaseSocketReads, sendStreamBody, type ChunkRelay, type HttpContext, type NatsConnection } from '@catalog/platform';

export interface BlobProxySettings {
  nc: NatsConnection;
  natsPrefix: string;
  /** Fixed base URL of the asset service's listener; unset: asked over NATS for every upload. */
  assetHttpUrl?: string | undefined;
  discoveryTimeoutMs?: number;
}

export interface BlobProxy {
  /** Koa middleware: `PUT /uploads/…` (signed fs upload URLs) streamed to an asset listener. */
  uploads(ctx: HttpContext, next: Next): Promise<void>;
  /** Streams the response of a service's signed download location to the client. */
  download(ctx: HttpContext, reply: unknown): Promise<void>;
}

export const UPLOAD_PREFIX = '/uploads/';

const RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'accept-ranges',
  'etag',
  'content-disposition',
  'cache-control',
  'last-modified',
] as const;

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function unavailable(): AppError {
  return new AppError(503, 'service_unavailable', 'the asset service is not available');
}

async function relayResponse(ctx: HttpContext, upstream: IncomingMessage): Promise<void> {
  ctx.status = upstream.statusCode ?? 502;
  for (const name of RESPONSE_HEADERS) {
    const value = upstream.headers[name];
    if (value !== undefined) ctx.set(name, value);
  }
  if (ctx.status === 204 || ctx.status === 304 || upstream.headers['content-length'] === '0') {
    upstream.resume();
    ctx.body = null;
    return;
  }
  await sendStreamBody(ctx, upstream);
}

/**
 * Sends one request upstream, relaying `body` into it, and resolves with the upstream response.
 * Uploads go over the keep-alive agent. A download gets a connection of its own (`agent: false`,
 * closed after it): its socket reads are released as soon as the HTTP parser has copied them,
 * which is safe only on a socket no other exchange will reuse (decision 0042).
 */
function forward(target: URL, method: string, headers: OutgoingHttpHeaders, body: Readable | null): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(target, { method, headers, ...(body ? { agent } : { agent: false }) });
    let relay: ChunkRelay | undefined;
    if (!body) upstream.once('socket', releaseSocketReads);
    upstream.on('response', (response) => {
      // An upstream that answers before it has read the whole body (a rejection) takes no more of it.
      relay?.stop();
      resolve(response);
    });
    // After the response, a failure reaches whoever reads it; rejecting then changes nothing.
    upstream.on('error', reject);
    if (body) {
      relay = relayChunks(body, upstream, { destroySource: false });
    } else {
      upstream.end();
    }
  });
}

/**
 * Streams blob traffic between clients and the asset service's HTTP listener, never holding a
 * file in memory (Node's stream back-pressure paces both sides): uploads to signed fs URLs under
 * the public base (`PUT /uploads/…`, passed through with their query, whose signature the asset
 * service checks), and downloads from the short-lived signed locations the asset service returns.
 * URLs are never logged (the access log shows the path only; the signature is in the query).
 */
export function blobProxy(settings: BlobProxySettings): BlobProxy {
  async function listener(): Promise<string> {
    if (settings.assetHttpUrl) return settings.assetHttpUrl;
    try {
      const reply = await settings.nc.request(assetListenerSubject(settings.natsPrefix), '', { timeout: settings.discoveryTimeoutMs ?? 2_000 });
      const { url } = reply.json<{ url?: unknown }>();
      if (typeof url !== 'string') throw new Error('no url in the discovery answer');
      return url;
    } catch {
      throw unavailable();
    }
  }

  return {
    async uploads(ctx, next) {
      if (!ctx.path.startsWith(UPLOAD_PREFIX)) return next();
      if (ctx.method !== 'PUT') {
        ctx.set('Allow', 'PUT');
        throw new AppError(405, 'method_not_allowed', 'send the file with PUT');
      }
      const target = new URL(ctx.url, await listener());
      const headers: OutgoingHttpHeaders = { 'x-request-id': ctx.state.requestId };
      for (const name of ['content-type', 'content-length', 'transfer-encoding'] as const) {
        const value = ctx.get(name);
        if (value) headers[name] = value;
      }
      let upstream: IncomingMessage;
      try {
        upstream = await forward(target, 'PUT', headers, ctx.req);
      } catch (error) {
        if (!ctx.req.complete && ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || ctx.req.destroyed)) {
          throw new AppError(400, 'upload_incomplete', 'the upload was interrupted before it was complete');
        }
        throw unavailable();
      }
      // A rejected upload may still be arriving: do not reuse the connection for another request.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
      await relayResponse(ctx, upstream);
    },

    async download(ctx, reply) {
      const location = (reply as { location?: unknown } | null)?.location;
      if (typeof location !== 'string') throw new AppError(502, 'bad_gateway', 'the asset service answered without a download location');
      const headers: OutgoingHttpHeaders = { 'x-request-id': ctx.state.requestId };
      for (const name of ['range', 'if-range', 'if-none-match'] as const) {
        const value = ctx.get(name);
        if (value) headers[name] = value;
      }
      let upstream: IncomingMessage;
      try {
        upstream = await forward(new URL(location), 'GET', headers, null);
      } catch {
        throw unavailable();
      }
      await relayResponse(ctx, upstream);
    },
  };
}
