import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';

/**
 * The body of `req` as a stream its reader may destroy (a refusal in the middle of the body)
 * without destroying the request, whose connection still has to carry the answer (decision 0124).
 * The request cut off before its end fails the stream with `ECONNRESET`.
 */
export function detachedBody(req: IncomingMessage): Readable {
  const body = new PassThrough();
  req.once('close', () => {
    if (!req.complete) body.destroy(Object.assign(new Error('the request was cut off before its end'), { code: 'ECONNRESET' }));
  });
  req.pipe(body);
  return body;
}
