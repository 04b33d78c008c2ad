import { apiClient as platformApiClient, type ApiClient, type ApiResponse } from '@catalog/testing';
import { ADMIN_TOKEN } from './system.js';

export type { ApiRequestOptions as RequestOptions, ApiResponse } from '@catalog/testing';

/** The public HTTP API client of `@catalog/testing`, with the system's admin token. */
export function apiClient(baseUrl: string): ApiClient {
  return platformApiClient(baseUrl, ADMIN_TOKEN);
}

/** `response` is the error body `{error: {code, message, details?, requestId}}` with `status` and `code`. */
export function expectError(response: ApiResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(typeof response.body.error.message).toBe('string');
  expect(response.body.error.requestId).toBe(response.headers.get('x-request-id'));
}
