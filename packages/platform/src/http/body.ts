import getRawBody from 'raw-body';
import type { IncomingMessage } from 'node:http';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '../errors.js';

/**
 * Reads a JSON request body with a size limit. No body → undefined. A declared or actual length
 * over the limit → 413; a content type other than JSON → 415; unparsable JSON → 400.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
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
  let text: string;
  try {
    text = await getRawBody(req, { limit: limitBytes, encoding: 'utf8' });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      throw payloadTooLarge(`request body exceeds ${limitBytes} bytes`, { limitBytes });
    }
    throw badRequest('invalid_body', 'request body could not be read');
  }
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw badRequest('invalid_json', 'request body is not valid JSON', { reason: (error as Error).message });
  }
}
