import Koa, { type Next } from 'koa';
import { randomUUID } from 'node:crypto';
import { AppError } from '../support/errors.js';
import { unexpectedErrorAnswer } from '../bus/failure-kind.js';
import { pathOnly, type Logger } from '../observability/logger.js';
import { guardBodyReads, type BodyReadLimits } from './body-guard.js';
import { errorBody } from './error-body.js';
import type { HttpContext, HttpState } from './context.js';

export { errorBody } from './error-body.js';
import type { MetricsRegistry } from '../observability/metrics.js';

export type { HttpContext, HttpState } from './context.js';

export interface HttpAppSettings {
  logger: Logger;
  /** Throws when a dependency (Postgres, NATS) does not answer; `/readyz` is 503 until it passes. */
  ready: () => Promise<void>;
  /** Whether to log one line per request (gateway: yes; internal listeners: as configured). */
  accessLog?: boolean;
  /**
   * Proxies in front of this listener that append the address they received from to
   * X-Forwarded-For (and set X-Forwarded-Proto). 0 (the default): the socket address is the client.
   * N: the client is the N-th address from the right, so addresses a client wrote into the header
   * itself are never taken (Koa's `proxy` with `maxIpsCount`).
   */
  proxyHops?: number;
  /** Slow-loris protection of request bodies (see guardBodyReads); none when absent. */
  bodyReads?: BodyReadLimits;
  /** Counters served at `/metrics` in the Prometheus text format (none: no `/metrics`). */
  metrics?: MetricsRegistry;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A Koa app with what every listener needs: a request id (taken from `X-Request-Id` when it is
 * well-formed), a per-request child logger, one access-log line (path without query, which may
 * carry a signature), errors rendered as the `error` body, request bodies held to a least rate
 * (`bodyReads`), `/healthz`, `/readyz` and, given a registry, `/metrics`.
 */
export function createHttpApp(settings: HttpAppSettings): Koa<HttpState> {
  const app = new Koa<HttpState>();
  const proxyHops = settings.proxyHops ?? 0;
  app.proxy = proxyHops > 0;
  app.maxIpsCount = proxyHops;
  app.silent = true;

  app.use(async (ctx: HttpContext, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = settings.logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    if (settings.bodyReads) guardBodyReads(ctx, settings.bodyReads);
    try {
      await next();
    } catch (error) {
      renderError(ctx, error);
    } finally {
      if (settings.accessLog !== false && ctx.path !== '/healthz' && ctx.path !== '/readyz' && ctx.path !== '/metrics') {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        ctx.state.log.info(
          { method: ctx.method, path: pathOnly(ctx.originalUrl), status: ctx.status, ms: Math.round(ms * 10) / 10 },
          'request',
        );
      }
    }
  });

  app.use(async (ctx: HttpContext, next: Next) => {
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    if (ctx.path === '/readyz') {
      try {
        await settings.ready();
        ctx.body = { status: 'ready' };
      } catch (error) {
        ctx.status = 503;
        ctx.body = { status: 'not_ready', reason: (error as Error).message };
      }
      return;
    }
    if (ctx.path === '/metrics' && settings.metrics) {
      ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
      ctx.body = settings.metrics.render();
      return;
    }
    await next();
  });

  return app;
}

/**
 * Renders any error as the `error` body; unknown errors are logged and become a bare 500, or a 503
 * when a dependency is away (Postgres restarting).
 */
export function renderError(ctx: HttpContext, error: unknown): void {
  let appError: AppError;
  if (error instanceof AppError) {
    appError = error;
  } else if (isHttpError(error) && error.status < 500 && error.expose) {
    appError = new AppError(error.status, codeForStatus(error.status), error.message);
  } else {
    appError = unexpectedErrorAnswer(error);
    if (appError.status === 503) ctx.state.log.warn({ err: error }, 'a dependency is unavailable');
    else ctx.state.log.error({ err: error }, 'unhandled error');
  }
  ctx.status = appError.status;
  ctx.type = 'application/json';
  // A refusal that says when to try again (a limit, or work still under way) says it in the header too.
  if ((appError.status === 429 || appError.status === 503) && typeof appError.details?.retryAfterSeconds === 'number') {
    ctx.set('Retry-After', String(appError.details.retryAfterSeconds));
  }
  ctx.body = errorBody(appError, ctx.state.requestId);
}

function isHttpError(error: unknown): error is { status: number; expose: boolean; message: string } {
  return typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';
}

function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    default:
      return 'error';
  }
}
