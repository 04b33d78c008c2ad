import getRawBody from 'raw-body';
import { badRequest, payloadTooLarge, unsupportedMediaType, type AppError } from '../errors.js';
import type { HttpContext } from './app.js';
import { bodyTimeout, cutOffRequest } from './body-guard.js';

export interface JsonBodyOptions {
  /** The whole body must arrive within this once reading starts; else 408 and the connection closes. */
  timeoutMs?: number;
}

/**
 * Reads a JSON request body with a size limit. No body → undefined. A declared or actual length
 * over the limit → 413; a content type other than JSON → 415; unparsable JSON → 400; a body that
 * does not arrive whole within `timeoutMs` → 408 `body_timeout` (the connection is closed).
 */
export async function readJsonBody(ctx: HttpContext, limitBytes: number, options: JsonBodyOptions = {}): Promise<unknown> {
  const { req } = ctx;
  const length = req.headers['content-length'];
  const chunked = (req.headers['transfer-encoding'] ?? '').length > 0;
  if ((length === undefined || length === '0') && !chunked) return undefined;
  if (length !== undefined && Number(length) > limitBytes) {
    req.resume();
    throw payloadTooLarge(`request body exceeds ${limitBytes} bytes`, { limitBytes });
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json' && !type?.endsWith('+json')) {
    req.resume();
    throw unsupportedMediaType('request body must be application/json', { contentType: type || null });
  }
  let timedOut: AppError | null = null;
  const deadline =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = bodyTimeout(`the request body did not arrive within ${options.timeoutMs} ms`, { timeoutMs: options.timeoutMs });
          cutOffRequest(ctx, timedOut);
        }, options.timeoutMs);
  let text: string;
  try {
    text = await getRawBody(req, { limit: limitBytes, encoding: 'utf8' });
  } catch (error) {
    if (timedOut) throw timedOut;
    if ((error as { type?: string }).type === 'entity.too.large') {
      throw payloadTooLarge(`request body exceeds ${limitBytes} bytes`, { limitBytes });
    }
    throw badRequest('invalid_body', 'request body could not be read');
  } finally {
    clearTimeout(deadline);
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest('invalid_json', 'request body is not valid JSON', { reason: (error as Error).message });
  }
}
