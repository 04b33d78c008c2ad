import type { AppError } from '../support/errors.js';

/** The public error body of the API. */
export function errorBody(error: AppError, requestId: string): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId,
    },
  };
}
