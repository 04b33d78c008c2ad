import { apiClient as platformApiClient, type ApiClient } from '@catalog/testing';
import { ADMIN_TOKEN } from './system.js';

export type { ApiRequestOptions as RequestOptions, ApiResponse } from '@catalog/testing';

/** The public HTTP API client of `@catalog/testing`, with the system's admin token. */
export function apiClient(baseUrl: string): ApiClient {
  return platformApiClient(baseUrl, ADMIN_TOKEN);
}
