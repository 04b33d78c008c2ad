import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { Next } from 'koa';
import { AppError, sendStreamBody, type HttpContext, type HttpState } from '@catalog/platform';
import type { AnalysisDatabase } from '../domain/database.js';
import { RESULT_PATH_PREFIX, type ResultLinks } from '../domain/result-links.js';
import { jobJson } from '../domain/result-stream.js';

export interface ResultListenerDeps {
  db: AnalysisDatabase;
  links: ResultLinks;
}

/**
 * `GET /analysis-results/<jobId>?t=<tenant>&exp=…&sig=…`: the job with its whole result, the JSON
 * of `GET /api/v1/catalog/analyses/{jobId}`, for the gateway to stream (decision 0113). Authorised
 * by the link's signature alone (getAnalysis signs it for the caller's tenant, for a minute). The
 * result is read as the client takes it (domain/result-stream.ts). The URLs are never logged.
 */
export function mountResultRoutes(app: Koa<HttpState>, deps: ResultListenerDeps): void {
  app.use(async (ctx: HttpContext, next: Next) => {
    if (!ctx.path.startsWith(RESULT_PATH_PREFIX)) return next();
    if (ctx.method !== 'GET') {
      ctx.set('Allow', 'GET');
      throw new AppError(405, 'method_not_allowed', 'read a result with GET');
    }
    const { tenantId, jobId } = deps.links.verify(ctx.path, new URLSearchParams(ctx.querystring));
    const json = await jobJson(deps.db, tenantId, jobId);
    ctx.status = 200;
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'private, no-store');
    ctx.length = json.bytes;
    await sendStreamBody(ctx, Readable.from(json.body, { objectMode: false }));
  });
}
