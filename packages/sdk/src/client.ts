import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, networkError } from './errors.js';
import type { components, operations, paths } from './generated/openapi.js';
import { DEFAULT_RETRY_POLICY, retryingFetch, type Fetch, type RetryPolicy } from './http/retry.js';

export type { components, operations, paths };

export interface CatalogClientOptions {
  /** The gateway's address, e.g. `https://catalog.example.com` (no trailing path). */
  baseUrl: string;
  /** An API key (`sk_…`), sent as `Authorization: Bearer`. Keep it server-side. */
  apiKey: string;
  /** Retries on 429/503 and on failed connections (decision 0138); `{maxAttempts: 1}` turns them off. */
  retry?: Partial<RetryPolicy>;
  /** The fetch to send requests with (default: the global one). */
  fetch?: Fetch;
  /** Sent as User-Agent. */
  userAgent?: string;
}

/** The typed client: `api` is openapi-fetch over the generated `paths` (every route of the document). */
export interface CatalogClient {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  /** The fetch the client sends with (retries applied), for requests outside the document (signed upload URLs). */
  readonly fetch: Fetch;
  /**
   * One attempt each (its timeout and Idempotency-Key, no retry), for a caller that paces its own
   * attempts against a limit: the feed consumer, whose every request the gateway counts (0184).
   */
  readonly fetchOnce: Fetch;
  readonly retry: Readonly<RetryPolicy>;
}

export function createCatalogClient(options: CatalogClientOptions): CatalogClient {
  const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const base: Fetch = options.fetch ?? ((request) => fetch(request));
  const send = retryingFetch(base, retry);
  const fetchOnce = retryingFetch(base, { ...retry, maxAttempts: 1 });
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const api = createClient<paths>({
    baseUrl,
    fetch: send,
    headers: {
      authorization: `Bearer ${options.apiKey}`,
      ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
    },
  });
  return { api, baseUrl, fetch: send, fetchOnce, retry };
}

/** What every openapi-fetch call resolves to. */
export type FetchResult<T> = { data?: T; error?: unknown; response: Response };

/**
 * The data of a successful call, or its typed error thrown (`CatalogError` and subclasses):
 * `const entity = await unwrap(client.api.GET('/api/v1/catalog/entities/{id}', {params: {path: {id}}}))`.
 */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  let result: FetchResult<T>;
  try {
    result = await call;
  } catch (error) {
    throw networkError(error);
  }
  if (result.response.ok) return result.data as T;
  throw errorFromResponse(result.response, result.error);
}
