import type Koa from 'koa';
import type { Middleware } from 'koa';
import { AppError, type HttpContext, type HttpState } from '@catalog/platform';
import type Router from '@koa/router';
import { requireOriginForm } from './request-target.js';
import { methodNotAllowed, pathMethods } from './route-match.js';

/**
 * Mounts the gateway's middleware on the platform app: origin-form request targets only, the IP
 * limit, then the public pages (`/docs`, `/app`: static files, decision 0139), then signed blob
 * uploads (streamed to the asset service, see blob-proxy.ts), then 405 for a method a known path
 * does not have, then the routes, then 404.
 */
export function mountGateway(
  app: Koa<HttpState>,
  router: Router<HttpState>,
  ipLimit: Middleware<HttpState>,
  uploads?: Middleware<HttpState>,
  pages: readonly Middleware<HttpState>[] = [],
): void {
  app.use(requireOriginForm);
  app.use(ipLimit);
  for (const page of pages) app.use(page);
  if (uploads) app.use(uploads);
  const operations = router.stack.flatMap((layer) =>
    typeof layer.path === 'string' ? layer.methods.map((method) => ({ method, path: layer.path as string })) : [],
  );
  app.use(methodNotAllowed(pathMethods(operations)));
  app.use(router.routes());
  app.use(async (ctx: HttpContext) => {
    throw new AppError(404, 'route_not_found', `no operation at ${ctx.method} ${ctx.path}`);
  });
}
