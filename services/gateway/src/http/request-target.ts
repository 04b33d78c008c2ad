import type { Next } from 'koa';
import { AppError, type HttpContext } from '@catalog/platform';

/**
 * What a request may name. The gateway answers origin-form targets only (`/path?query`, RFC 9112
 * §3.2.1): an absolute-form target (`PUT http://other-host/…`), an authority or asterisk form, or a
 * path starting with `//` could otherwise pick the host, port or scheme of a URL built from it.
 */
export function invalidRequestTarget(message: string): AppError {
  return new AppError(400, 'invalid_request_target', message);
}

/** Koa middleware: 400 `invalid_request_target` unless the request target is origin-form. */
export async function requireOriginForm(ctx: HttpContext, next: Next): Promise<void> {
  const target = ctx.req.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) {
    throw invalidRequestTarget('the request target must be a path (origin-form), not a URL');
  }
  return next();
}

/**
 * An upload path: `/uploads/` and one or more segments of letters, digits, `-` and `_` (the object
 * keys the asset service signs). No dot, percent sign, backslash or empty segment can pass, so
 * neither a dot-segment, in clear or percent-encoded, nor an encoded slash can reach the listener.
 */
const UPLOAD_PATH = /^\/uploads(?:\/[A-Za-z0-9_-]+)+$/;
/** A query as URLSearchParams writes it: unreserved characters, `+`, `=`, `&` and well-formed escapes. */
const UPLOAD_QUERY = /^(?:[A-Za-z0-9*._~+=&-]|%[0-9A-Fa-f]{2})*$/;

/**
 * The upstream URL of an upload: the listener's origin (scheme, host and port, nothing else), the
 * checked path and the checked query of `rawTarget` (the request's own target, origin-form). Any
 * other target is a 400; nothing of the request can choose where the upload goes.
 */
export function uploadUpstreamUrl(rawTarget: string, listener: string): URL {
  const queryAt = rawTarget.indexOf('?');
  const path = queryAt < 0 ? rawTarget : rawTarget.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rawTarget.slice(queryAt + 1);
  if (!UPLOAD_PATH.test(path)) throw invalidRequestTarget('the upload path is malformed; use upload.url exactly as returned');
  if (!UPLOAD_QUERY.test(query)) throw invalidRequestTarget('the upload query is malformed; use upload.url exactly as returned');
  const { origin } = new URL(listener);
  return new URL(`${origin}${path}${query ? `?${query}` : ''}`);
}
