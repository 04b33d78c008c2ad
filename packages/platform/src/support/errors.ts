/**
 * The typed error every layer throws for a client-visible failure. It crosses NATS as
 * `{status, code, message, details}` and the gateway renders it as the public error body
 * `{"error": {code, message, details?, requestId}}`.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toJSON(): ErrorPayload {
    return { status: this.status, code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

export interface ErrorPayload {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export const badRequest = (code: string, message: string, details?: Record<string, unknown>): AppError =>
  new AppError(400, code, message, details);
export const unauthorized = (message = 'missing or invalid API key'): AppError => new AppError(401, 'unauthorized', message);
export const forbidden = (message: string, details?: Record<string, unknown>): AppError => new AppError(403, 'forbidden', message, details);
export const notFound = (what: string): AppError => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, message: string, details?: Record<string, unknown>): AppError =>
  new AppError(409, code, message, details);
export const payloadTooLarge = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError(413, 'payload_too_large', message, details);
export const unsupportedMediaType = (message: string, details?: Record<string, unknown>): AppError =>
  new AppError(415, 'unsupported_media_type', message, details);
export const tooManyRequests = (message: string, retryAfterSeconds: number): AppError =>
  new AppError(429, 'rate_limited', message, { retryAfterSeconds });
