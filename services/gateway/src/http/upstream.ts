import { Agent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AppError,
  endLingeringAnswer,
  relayChunks,
  releaseSocketReads,
  sendStreamBody,
  startLingeringAnswer,
  type ChunkRelay,
  type HttpContext,
} from '@catalog/platform';

/** Limits of one request of the gateway to an asset listener. */
export interface UpstreamTimeouts {
  /** Longest wait for a new connection to open. */
  connectMs: number;
  /** Longest the connection may carry no byte either way (before or during the response). */
  idleMs: number;
}

/** Why an upstream exchange failed on our side of the wire: it did not connect, or it went quiet. */
export class UpstreamTimeoutError extends Error {
  constructor(readonly phase: 'connect' | 'idle') {
    super(phase === 'connect' ? 'the upstream did not accept the connection in time' : 'the upstream sent and took nothing for too long');
    this.name = 'UpstreamTimeoutError';
  }
}

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

// No cap on the uploads' connections here: a capped pool let one tenant's slow uploads queue every
// other tenant's behind them. Each tenant's uploads in flight are capped instead (upload-admission.ts).
const agent = new Agent({ keepAlive: true });

/**
 * A failed upstream exchange as the client sees it, naming the service whose listener failed: 504
 * when it was too slow, 503 when it could not be had.
 */
export function upstreamFailure(error: unknown, service: string): AppError {
  if (error instanceof UpstreamTimeoutError && error.phase === 'idle')
    return new AppError(504, 'upstream_timeout', `the ${service} service did not answer in time`);
  return new AppError(503, 'service_unavailable', `the ${service} service is not available`);
}

/** Destroys `upstream` when a new socket does not connect within `connectMs`. */
function limitConnect(upstream: ReturnType<typeof httpRequest>, socket: Socket, connectMs: number): void {
  if (!socket.connecting) return;
  const timer = setTimeout(() => upstream.destroy(new UpstreamTimeoutError('connect')), connectMs);
  socket.once('connect', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Sends one request upstream, relaying `body` into it, and resolves with the upstream response.
 * Uploads go over the keep-alive agent. A download gets a connection of its own (`agent: false`,
 * closed after it): its socket reads are released as soon as the HTTP parser has copied them,
 * which is safe only on a socket no other exchange will reuse (decision 0042). A connection that
 * does not open within `connectMs`, or stays silent for `idleMs` (before or while the response
 * streams), is destroyed with an `UpstreamTimeoutError`; one whose `signal` aborts, with its reason.
 */
export function forward(
  target: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Readable | null,
  timeouts: UpstreamTimeouts,
  signal?: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(target, { method, headers, ...(body ? { agent } : { agent: false }) });
    signal?.addEventListener('abort', () => upstream.destroy(signal.reason as Error), { once: true });
    let relay: ChunkRelay | undefined;
    upstream.setTimeout(timeouts.idleMs, () => upstream.destroy(new UpstreamTimeoutError('idle')));
    upstream.once('socket', (socket: Socket) => {
      limitConnect(upstream, socket, timeouts.connectMs);
      if (!body) releaseSocketReads(socket);
    });
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

/** Sets the status and the file's headers of an upstream response on the client's. */
function relayHead(ctx: HttpContext, upstream: IncomingMessage): void {
  ctx.status = upstream.statusCode ?? 502;
  for (const name of RESPONSE_HEADERS) {
    const value = upstream.headers[name];
    if (value !== undefined) ctx.set(name, value);
  }
}

/**
 * Relays an upstream response given before the client's body ended (a refusal), then closes the
 * client's connection with a lingering close (decision 0124), so that a client still sending the
 * rest of its upload reads the answer instead of a reset connection.
 */
export async function relayEarlyAnswer(ctx: HttpContext, upstream: IncomingMessage): Promise<void> {
  relayHead(ctx, upstream);
  startLingeringAnswer(ctx);
  // Either side failing destroys both (the client gone, or the answer cut off): nothing left to say.
  const relayed = await pipeline(upstream, ctx.res, { end: false }).then(
    () => true,
    () => false,
  );
  if (relayed) await endLingeringAnswer(ctx);
}

/** Relays an upstream response (status, the file's headers, body) to the client. */
export async function relayResponse(ctx: HttpContext, upstream: IncomingMessage): Promise<void> {
  relayHead(ctx, upstream);
  if (ctx.status === 204 || ctx.status === 304 || upstream.headers['content-length'] === '0') {
    upstream.resume();
    ctx.body = null;
    return;
  }
  await sendStreamBody(ctx, upstream);
}
