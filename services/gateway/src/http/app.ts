import type Koa from 'koa';
import type { Middleware } from 'koa';
import { AppError, type HttpContext, type HttpState } from '@catalog/platform';
import type Router from '@koa/router';
import { requireOriginForm } from './request-target.js';

/**
 * Mounts the gateway's middleware on the platform app: origin-form request targets only, the IP
 * limit, then signed blob uploads (streamed to the asset service, see blob-proxy.ts), then the
 * routes, then 404/405.
 */
export function mountGateway(app: Koa<HttpState>, router: Router<HttpState>, ipLimit: Middleware<HttpState>, uploads?: Middleware<HttpState>): void {
  app.use(requireOriginForm);
  app.use(ipLimit);
  if (uploads) app.use(uploads);
  app.use(router.routes());
  app.use(async (ctx: HttpContext) => {
    const allowed = router.stack.filter((layer) => layer.match(ctx.path)).flatMap((layer) => layer.methods);
    if (allowed.length > 0) {
      ctx.set('Allow', [...new Set(allowed)].join(', '));
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on this path`);
    }
    throw new AppError(404, 'route_not_found', `no operation at ${ctx.method} ${ctx.path}`);
  });
}
