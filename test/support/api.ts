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

/**
 * Confirms an upload, again while the answer is 503 `confirmation_in_progress` (its verification
 * runs on; on a busy machine it can outlast ASSET_CONFIRM_WAIT_MS), after its Retry-After, as a
 * client is told to; the settled answer.
 */
export async function confirmUpload(api: ApiClient, key: string, assetId: string, timeoutMs = 300_000): Promise<ApiResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api.request('POST', `/api/v1/catalog/assets/${assetId}/confirm`, { key });
    if (answer.body?.error?.code !== 'confirmation_in_progress' || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers.get('retry-after') ?? 1)));
  }
}
