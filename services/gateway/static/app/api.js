// @ts-check
/* Calls of the public API with the session's key as a bearer, like any client (decision 0139). */
import { apiKey } from './session.js';

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

/** Called when the key is refused (401): the page signs out. @type {() => void} */
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
 * @param {string} key
 * @param {Record<string, string>} [extra]
 */
export function authHeaders(key, extra = {}) {
  return { authorization: `Bearer ${key}`, ...extra };
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
 * One API call: JSON in and out; a failure is an ApiError with the error body's code and message.
 * @param {string} method
 * @param {string} path with its query
 * @param {{ body?: unknown, idempotent?: boolean, key?: string }} [options]
 * @returns {Promise<unknown>}
 */
export async function call(method, path, options = {}) {
  const key = options.key ?? apiKey();
  if (!key) throw new ApiError(401, 'signed_out', 'sign in with an API key first');
  /** @type {Record<string, string>} */
  const extra = {};
  if (options.body !== undefined) extra['content-type'] = 'application/json';
  if (options.idempotent) extra['idempotency-key'] = requestId();
  const response = await fetch(path, {
    method,
    headers: authHeaders(key, extra),
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  if (response.status === 401 && !options.key) onUnauthorized();
  if (!response.ok) throw await errorOf(response);
  return response.status === 204 ? null : response.json();
}

/**
 * A file of the API (the signed download the gateway streams) as a blob.
 * @param {string} path
 * @returns {Promise<Blob>}
 */
export async function download(path) {
  const key = apiKey();
  if (!key) throw new ApiError(401, 'signed_out', 'sign in with an API key first');
  const response = await fetch(path, { headers: authHeaders(key) });
  if (!response.ok) throw await errorOf(response);
  return response.blob();
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
