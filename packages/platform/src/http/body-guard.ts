import type { IncomingMessage } from 'node:http';
import { AppError } from '../support/errors.js';
import type { HttpContext } from './context.js';
import { errorBody } from './error-body.js';

export interface BodyReadLimits {
  /** The window over which the body must progress. */
  windowMs: number;
  /** Least average rate over a window; at least one byte per window in any case. */
  minBytesPerSecond: number;
}

/** Whether a request announces a body (a length above 0, or chunked). */
function announcesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || (req.headers['transfer-encoding'] ?? '').length > 0;
}

/**
 * Ends a request the server will not read further: answers `error` (unless a response has begun)
 * with `Connection: close`, then closes the connection, whatever the client is still sending.
 * Koa writes nothing afterwards.
 */
export function cutOffRequest(ctx: HttpContext, error: AppError): void {
  const { req, res } = ctx;
  ctx.respond = false;
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const text = JSON.stringify(errorBody(error, ctx.state.requestId));
  res.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': ctx.state.requestId,
    connection: 'close',
  });
  res.end(text, () => req.socket.destroy());
}

/** 408 `body_timeout`: the body did not progress fast enough (or at all). */
export function bodyTimeout(message: string, details?: Record<string, unknown>): AppError {
  return new AppError(408, 'body_timeout', message, details);
}

/**
 * Watches the body of `ctx.req` while it is read (slow-loris protection, decision 0050): in every
 * `windowMs` during which the reader took the body as it came, at least
 * max(1, minBytesPerSecond × window) bytes must have arrived; otherwise the request is cut off
 * with 408 `body_timeout`. A window in which nobody read the body yet, or the reader paused it
 * (back-pressure: the server was the slow side), does not count. So a large upload may take as
 * long as it needs while it progresses, and one that stalls or trickles is ended. The bytes are
 * counted on the socket, never by reading the body.
 */
export function guardBodyReads(ctx: HttpContext, limits: BodyReadLimits): void {
  const { req } = ctx;
  if (!announcesBody(req) || req.complete) return;
  const minBytes = Math.max(1, Math.ceil((limits.minBytesPerSecond * limits.windowMs) / 1000));
  let mark = req.socket.bytesRead;
  let heldBack = false;
  const onPause = (): void => {
    heldBack = true;
  };
  const check = (): void => {
    const read = req.socket.bytesRead;
    const counted = req.readableFlowing === true && !heldBack;
    if (counted && read - mark < minBytes) {
      stop();
      ctx.state.log.warn({ windowMs: limits.windowMs, bytes: read - mark, minBytes }, 'request body too slow: cut off');
      cutOffRequest(
        ctx,
        bodyTimeout(`the request body arrived too slowly (fewer than ${minBytes} bytes in ${limits.windowMs} ms)`, {
          windowMs: limits.windowMs,
          minBytes,
        }),
      );
      return;
    }
    mark = read;
    heldBack = req.isPaused();
  };
  const timer = setInterval(check, limits.windowMs);
  timer.unref();
  function stop(): void {
    clearInterval(timer);
    req.off('pause', onPause);
    req.off('end', stop);
    req.off('close', stop);
  }
  req.on('pause', onPause);
  req.once('end', stop);
  req.once('close', stop);
}
