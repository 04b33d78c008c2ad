/** @catalog/sdk: the typed client of the catalog service's public API (docs/sdk.md). */
export { createCatalogClient, unwrap, type CatalogClient, type CatalogClientOptions, type FetchResult } from './client.js';
export type { components, operations, paths } from './generated/openapi.js';
export * from './errors.js';
export * from './types.js';
export { DEFAULT_RETRY_POLICY, IDEMPOTENCY_KEY, backoffDelay, takesIdempotencyKey, type RetryPolicy, type Fetch } from './http/retry.js';
export { cursorKey, memoryCursorStore, type CursorState, type CursorStore } from './feed/cursor-store.js';
export { fileCursorStore } from './feed/file-store.js';
export { postgresCursorStore, type PostgresCursorStore, type Queryable } from './feed/postgres-store.js';
export {
  consumeEventPages,
  consumeEvents,
  MAX_WAIT_SECONDS,
  MIN_PAGE_INTERVAL_MS,
  MIN_POLL_INTERVAL_MS,
  type FeedConsumerOptions,
  type FeedPage,
} from './feed/consumer.js';
export { addVersionFromFile, uploadAsset, type AddVersionOptions, type UploadOptions, type UploadedVersion } from './upload/upload.js';
export { contentTypeOf, type UploadInput } from './upload/file-source.js';
export type { UploadProgress } from './upload/put.js';
export { analyseFile, getAnalysis, requestAnalysis, runAnalysis, waitForAnalysis, type WaitOptions } from './analyses.js';
