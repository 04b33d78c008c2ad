/**
 * Typed errors of the API's error body `{"error": {code, message, details?, requestId}}`: one class
 * per kind of answer (by status), each carrying the stable `code` of the body, so callers branch
 * with `instanceof` or on `error.code` (`isCatalogError(e, 'insufficient_credits')`).
 */

/** Codes the API answers (the body's `error.code`); others may come, hence the open end. */
export type CatalogErrorCode =
  | 'invalid_body'
  | 'invalid_json'
  | 'invalid_query'
  | 'invalid_cursor'
  | 'invalid_header'
  | 'unknown_event_type'
  | 'unauthorized'
  | 'forbidden'
  | 'plan_required'
  | 'insufficient_credits'
  | 'not_found'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_progress'
  | 'source_not_online'
  | 'source_not_audio'
  | 'no_primary_audio_version'
  | 'asset_not_online'
  | 'asset_expired'
  | 'asset_failed'
  | 'dmrn_in_use'
  | 'duplicate_dmrn'
  | 'upload_missing'
  | 'upload_incomplete'
  | 'upload_size_mismatch'
  | 'checksum_mismatch'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'range_not_satisfiable'
  | 'rate_limited'
  | 'service_unavailable'
  | 'upstream_timeout'
  | 'network_error'
  | (string & {});

export interface ErrorFields {
  status: number;
  code: CatalogErrorCode;
  message: string;
  details?: Record<string, unknown>;
  requestId?: string;
  /** 429 and 503: how long the server asked to wait (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

/** Any refusal or failure of an API call. `status` 0: no answer (network). */
export class CatalogError extends Error {
  readonly status: number;
  readonly code: CatalogErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(fields: ErrorFields, options?: { cause?: unknown }) {
    super(fields.message, options);
    this.name = new.target.name;
    this.status = fields.status;
    this.code = fields.code;
    this.details = fields.details;
    this.requestId = fields.requestId;
    this.retryAfterMs = fields.retryAfterMs;
  }

  toJSON(): ErrorFields {
    return {
      status: this.status,
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...(this.requestId ? { requestId: this.requestId } : {}),
    };
  }
}

/** 400: the request is malformed (the offending fields are in `details`). */
export class BadRequestError extends CatalogError {}
/** 401: missing or invalid API key. */
export class AuthenticationError extends CatalogError {}
/** 402: the plan has no API access for the product, or too few analysis credits. */
export class PaymentRequiredError extends CatalogError {}
/** 403: the key lacks the permission the operation needs. */
export class PermissionError extends CatalogError {}
/** 404: unknown id (or one of another tenant). */
export class NotFoundError extends CatalogError {}
/** 409: a state conflict, or an Idempotency-Key reused with another request. */
export class ConflictError extends CatalogError {}
/** 429: a rate limit; `retryAfterMs` says how long to wait. */
export class RateLimitedError extends CatalogError {}
/** 5xx: the server or one of its services failed or is unavailable. */
export class ServerError extends CatalogError {}
/** No answer: the connection failed or the request timed out. */
export class NetworkError extends CatalogError {}
/** An analysis job ended FAILED; `code` is the job's error code. */
export class AnalysisFailedError extends CatalogError {}

const BY_STATUS: Record<number, new (fields: ErrorFields) => CatalogError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  429: RateLimitedError,
};

/** Milliseconds of a Retry-After header (seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function errorBody(body: unknown): { code?: string; message?: string; details?: Record<string, unknown>; requestId?: string } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return {};
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null ? (error as Record<string, never>) : {};
}

/** The typed error of an answer that is not a success. */
export function errorFromResponse(response: Response, body: unknown): CatalogError {
  const fields = errorBody(body);
  const status = response.status;
  const Kind = BY_STATUS[status] ?? (status >= 500 ? ServerError : CatalogError);
  return new Kind({
    status,
    code: fields.code ?? `http_${status}`,
    message: fields.message ?? (typeof body === 'string' && body ? body : `HTTP ${status}`),
    ...(fields.details ? { details: fields.details } : {}),
    requestId: fields.requestId ?? response.headers.get('x-request-id') ?? undefined,
    retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
  });
}

/** The error of a call that got no answer. */
export function networkError(cause: unknown): NetworkError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new NetworkError({ status: 0, code: 'network_error', message }, { cause });
}

/** Whether `error` is a CatalogError, with `code` when given. */
export function isCatalogError(error: unknown, code?: CatalogErrorCode): error is CatalogError {
  return error instanceof CatalogError && (code === undefined || error.code === code);
}

/** Whether waiting and sending again may succeed: 429, 503, 504, or no answer. */
export function isTransient(error: unknown): error is CatalogError {
  return (
    error instanceof RateLimitedError ||
    error instanceof NetworkError ||
    (error instanceof ServerError && [503, 504].includes(error.status))
  );
}
