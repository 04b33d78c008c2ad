import { AppError, isUuid, type UrlSigner } from '@catalog/platform';

/** Where the analysis service's listener serves a job with its whole result (decision 0113). */
export const RESULT_PATH_PREFIX = '/analysis-results/';

/** How long a link to a job's result is valid: the gateway follows it at once. */
export const RESULT_LINK_TTL_MS = 60_000;

/** Signed, short-lived links to a job with its whole result on this service's listener. */
export interface ResultLinks {
  /** The URL the gateway streams the job of `tenantId` from (valid RESULT_LINK_TTL_MS). */
  location(tenantId: string, jobId: string): string;
  /** The tenant and job a request of the listener names; 403 when its signature is missing, wrong or expired. */
  verify(path: string, query: URLSearchParams): { tenantId: string; jobId: string };
}

/**
 * Links signed with the platform's URL signer (HMAC over method, path and parameters, with an
 * expiry): the path names the job, the signed parameter `t` its tenant, so a link opens one job of
 * one tenant only, for a minute. `baseUrl` is the listener's address as the gateway reaches it.
 */
export function resultLinks(signer: UrlSigner, baseUrl: () => string, ttlMs = RESULT_LINK_TTL_MS): ResultLinks {
  return {
    location(tenantId, jobId) {
      const path = `${RESULT_PATH_PREFIX}${jobId}`;
      return `${baseUrl()}${path}?${signer.sign('GET', path, { t: tenantId }, new Date(Date.now() + ttlMs))}`;
    },
    verify(path, query) {
      const params = signer.verify('GET', path, query);
      const jobId = path.slice(RESULT_PATH_PREFIX.length);
      if (!isUuid(jobId) || !params.t || !isUuid(params.t)) {
        throw new AppError(403, 'invalid_signature', 'the URL signature does not match this request');
      }
      return { tenantId: params.t, jobId };
    },
  };
}
