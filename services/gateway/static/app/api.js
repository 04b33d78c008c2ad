// @ts-check
/* Calls of the public API through the page's session (decision 0153): `/api/…` is called as
   `/app/api/…`, where the gateway adds the session's key; the page never holds a key. */

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Called when the session has ended (401): the page signs out. @type {() => void} */
let onUnauthorized = () => undefined;

/** @param {() => void} handler */
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

/** A random id for Idempotency-Key (crypto.randomUUID needs a secure context; this does not). */
export function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * @param {Response} response
 * @returns {Promise<ApiError>}
 */
async function errorOf(response) {
  const body = await response.json().catch(() => null);
  const error = body && typeof body === 'object' ? body.error : null;
  return new ApiError(response.status, error?.code ?? 'error', error?.message ?? `${response.status} ${response.statusText}`);
}

/**
 * A request of the page to its gateway, with the header that marks it as the page's: a failure is
 * an ApiError with the error body's code and message.
 * @param {string} method
 * @param {string} url
 * @param {{ headers?: Record<string, string>, body?: string }} [options]
 * @returns {Promise<Response>}
 */
export async function request(method, url, options = {}) {
  const response = await fetch(url, { method, headers: { 'x-catalog-app': '1', ...options.headers }, body: options.body });
  if (!response.ok) throw await errorOf(response);
  return response;
}

/**
 * A call of the API through the session; a 401 means the session has ended.
 * @param {string} method
 * @param {string} path
 * @param {Record<string, string>} headers
 * @param {string} [body]
 * @returns {Promise<Response>}
 */
async function viaSession(method, path, headers, body) {
  try {
    return await request(method, `/app${path}`, { headers, body });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) onUnauthorized();
    throw error;
  }
}

/**
 * One API call: JSON in and out.
 * @param {string} method
 * @param {string} path `/api/…` with its query
 * @param {{ body?: unknown, idempotent?: boolean }} [options]
 * @returns {Promise<unknown>}
 */
export async function call(method, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotent) headers['idempotency-key'] = requestId();
  const response = await viaSession(method, path, headers, options.body === undefined ? undefined : JSON.stringify(options.body));
  return response.status === 204 ? null : response.json();
}

/**
 * A file of the API (the signed download the gateway streams) as a blob.
 * @param {string} path
 * @returns {Promise<Blob>}
 */
export async function download(path) {
  return (await viaSession('GET', path, {})).blob();
}

/**
 * `path` with the query of the entries that are set.
 * @param {string} path
 * @param {Record<string, string | number | boolean | null | undefined>} query
 */
export function withQuery(path, query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== null && value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** What a failed call tells the user. @param {unknown} error */
export function problem(error) {
  if (error instanceof ApiError) {
    if (error.status === 403) return `This key lacks the permission for that (${error.message}).`;
    if (error.status === 402) return `The organisation's plan does not include this (${error.message}).`;
    return `${error.message} (${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
