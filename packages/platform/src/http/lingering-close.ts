import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { renderError } from './app.js';
import type { HttpContext } from './context.js';

/** How much more of a refused request body a listener reads, and for how long, before it closes. */
export interface LingerLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * The bounds of a lingering close (decision 0124). 16 MiB is more than a peer can have in flight
 * when the answer reaches it (its socket send buffer and ours hold a few MiB each) and covers a
 * client that writes a whole body of that size before it reads; 5 s is nginx's
 * `lingering_timeout`, ample for the gateway, which stops sending once it has an answer and then
 * closes. A client that goes on sending past either bound is cut off (its connection reset).
 */
export const LINGER_LIMITS: LingerLimits = { maxBytes: 16 * 1024 * 1024, maxMs: 5_000 };

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
 * Starts an answer to a request whose body is still arriving: the status and headers set on
 * `ctx`, with `Connection: close`, written at once; Koa writes nothing more. The caller writes
 * the body, then calls `endLingeringAnswer`.
 */
export function startLingeringAnswer(ctx: Context): void {
  ctx.respond = false;
  ctx.set('Connection', 'close');
  ctx.res.writeHead(ctx.status);
}

/**
 * Ends an answer begun with `startLingeringAnswer` with a lingering close (as nginx's): reads and
 * drops what the client is still sending until its body ends, it closes, or `limits` are passed,
 * then ends the response and closes the connection. Closing at once with unread bytes resets the
 * connection, and a client still writing gets ECONNRESET/EPIPE instead of the answer. Until then
 * the response stays open, so Node does not close the socket as soon as it is sent.
 */
export async function endLingeringAnswer(ctx: Context, limits: LingerLimits = LINGER_LIMITS): Promise<void> {
  const { req, res } = ctx;
  if (!req.complete && !req.destroyed) await dropRest(req, limits);
  res.end(() => req.socket.destroy());
}

/**
 * Answers `error` (rendered as the app renders errors) to a request whose body is still
 * arriving, with a lingering close (see `endLingeringAnswer`).
 */
export async function refuseWithLingeringClose(ctx: HttpContext, error: unknown, limits: LingerLimits = LINGER_LIMITS): Promise<void> {
  renderError(ctx, error);
  const text = JSON.stringify(ctx.body);
  ctx.length = Buffer.byteLength(text);
  startLingeringAnswer(ctx);
  ctx.res.write(text);
  await endLingeringAnswer(ctx, limits);
}
