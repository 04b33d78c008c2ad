import getRawBody from 'raw-body';
import { badRequest, payloadTooLarge, unsupportedMediaType, type AppError } from '../support/errors.js';
import type { HttpContext } from './app.js';
import { bodyTimeout, cutOffRequest } from './body-guard.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';

/** RFC 8259 §8.1: JSON exchanged between systems is UTF-8; anything else is refused, never repaired. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface JsonBodyOptions {
  /** The whole body must arrive within this once reading starts; else 408 and the connection closes. */
  timeoutMs?: number;
  /** Most levels of arrays and objects (default MAX_JSON_DEPTH); deeper is 400, found before parsing. */
  maxDepth?: number;
}

/**
 * Reads a JSON request body with a size limit. No body → undefined. A declared or actual length
 * over the limit → 413; a content type other than JSON → 415; unparsable JSON, JSON that is not
 * UTF-8 or that nests deeper than `maxDepth` → 400 `invalid_json` (the depth is counted on the raw
 * bytes before anything is decoded or parsed; decision 0116); a body that does not arrive whole
 * within `timeoutMs` → 408 `body_timeout` (the connection is closed).
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
  let bytes: Buffer;
  try {
    bytes = await getRawBody(req, { limit: limitBytes });
  } catch (error) {
    if (timedOut) throw timedOut;
    if ((error as { type?: string }).type === 'entity.too.large') {
      throw payloadTooLarge(`request body exceeds ${limitBytes} bytes`, { limitBytes });
    }
    throw badRequest('invalid_body', 'request body could not be read');
  } finally {
    clearTimeout(deadline);
  }
  return parseJsonBytes(bytes, options.maxDepth ?? MAX_JSON_DEPTH);
}

/** The JSON value of a body's bytes (undefined for white space only), or 400 `invalid_json`. */
function parseJsonBytes(bytes: Uint8Array, maxDepth: number): unknown {
  if (nestsDeeperThan(bytes, maxDepth)) {
    throw badRequest('invalid_json', `request body nests arrays and objects deeper than ${maxDepth} levels`, { maxDepth });
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw badRequest('invalid_json', 'request body is not valid UTF-8 (RFC 8259 requires UTF-8)', { reason: 'encoding' });
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest('invalid_json', 'request body is not valid JSON', { reason: (error as Error).message });
  }
}
