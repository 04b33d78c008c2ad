import {
  AuthenticationError,
  CatalogError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ServerError,
} from '../errors.js';

/** catalogctl's exit codes (docs/sdk.md): what a script can branch on. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The server refused the request (400, 402 credits, 409), an analysis FAILED, or a local file could not be read. */
  failed: 1,
  /** Wrong command line: unknown command or option, missing argument, not logged in. */
  usage: 2,
  /** The key was refused (401), lacks the permission (403), or the plan lacks the product (402 plan_required). */
  auth: 3,
  /** The id is unknown (404). */
  notFound: 4,
  /** No answer, a server error (5xx), a rate limit that outlasted the retries (429), or a wait that timed out. */
  unavailable: 5,
} as const;

/** A mistake in the command line: exit 2 with the message and the usage line. */
export class UsageError extends Error {}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof AuthenticationError || error instanceof PermissionError) return EXIT.auth;
  if (error instanceof CatalogError && error.code === 'plan_required') return EXIT.auth;
  if (error instanceof NotFoundError) return EXIT.notFound;
  if (error instanceof NetworkError || error instanceof ServerError || error instanceof RateLimitedError) return EXIT.unavailable;
  return EXIT.failed;
}
