import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { renderError, type HttpContext } from '@catalog/platform';

/** How much more of a refused request body the listener reads, and for how long, before it closes. */
export interface LingerLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * The bounds of a lingering close (decision 0124). 16 MiB is more than a peer can have in flight
 * when the answer reaches it (its socket send buffer and ours hold a few MiB each); 5 s is
 * nginx's `lingering_timeout`, ample for the gateway, which stops sending once it has the answer
 * and then closes. A client that goes on sending past either bound is cut off.
 */
export const LINGER_LIMITS: LingerLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

/**
 * The body of `req` as a stream its reader may destroy (a refusal in the middle of the body)
 * without destroying the request, whose connection still has to carry the answer. The request
 * cut off before its end fails the stream with `ECONNRESET`.
 */
export function detachedBody(req: IncomingMessage): Readable {
  const body = new PassThrough();
  req.once('close', () => {
    if (!req.complete) body.destroy(Object.assign(new Error('the request was cut off before its end'), { code: 'ECONNRESET' }));
  });
  req.pipe(body);
  return body;
}

/** Reads and drops the rest of `req` until it ends, closes, or passes `limits`. */
function dropRest(req: IncomingMessage, limits: LingerLimits): Promise<void> {
  return new Promise((resolve) => {
    let dropped = 0;
    const timer = setTimeout(done, limits.maxMs);
    const count = (chunk: Buffer): void => {
      dropped += chunk.length;
      if (dropped > limits.maxBytes) done();
    };
    function done(): void {
      clearTimeout(timer);
      req.off('data', count);
      req.off('end', done);
      req.off('close', done);
      req.pause();
      resolve();
    }
    req.on('data', count);
    req.once('end', done);
    req.once('close', done);
    req.resume();
  });
}

/**
 * Answers `error` (rendered as the app renders errors, with `Connection: close`) to a request
 * whose body is still arriving, then closes the connection the way nginx's lingering close does:
 * it first reads and drops what the peer is still sending, until the body ends, the peer closes,
 * or `limits` are passed. Closing at once with unread bytes would reset the connection, and a
 * peer still writing (the gateway relaying an upload) would get ECONNRESET/EPIPE instead of the
 * answer. The response stays open until then, so Node does not close the socket when it is sent.
 */
export async function refuseWithLingeringClose(ctx: HttpContext, error: unknown, limits: LingerLimits = LINGER_LIMITS): Promise<void> {
  const { req, res } = ctx;
  renderError(ctx, error);
  const text = JSON.stringify(ctx.body);
  ctx.respond = false;
  ctx.set('Connection', 'close');
  ctx.length = Buffer.byteLength(text);
  res.writeHead(ctx.status);
  res.write(text);
  if (!req.complete && !req.destroyed) await dropRest(req, limits);
  res.end(() => req.socket.destroy());
}
