import Koa, { type Context, type Next } from 'koa';
import { randomUUID } from 'node:crypto';
import { AppError } from '../errors.js';
import { pathOnly, type Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';

export interface HttpState {
  requestId: string;
  log: Logger;
}

export type HttpContext = Context & { state: HttpState };

export interface HttpAppSettings {
  logger: Logger;
  /** Throws when a dependency (Postgres, NATS) does not answer; `/readyz` is 503 until it passes. */
  ready: () => Promise<void>;
  /** Whether to log one line per request (gateway: yes; internal listeners: as configured). */
  accessLog?: boolean;
  /** Trust X-Forwarded-For / -Proto (only behind a proxy that sets them). */
  trustProxy?: boolean;
  /** Counters served at `/metrics` in the Prometheus text format (none: no `/metrics`). */
  metrics?: MetricsRegistry;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The public error body of the API. */
export function errorBody(error: AppError, requestId: string): { error: Record<string, unknown> } {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId,
    },
  };
}

/**
 * A Koa app with what every listener needs: a request id (taken from `X-Request-Id` when it is
 * well-formed), a per-request child logger, one access-log line (path without query, which may
 * carry a signature), errors rendered as the `error` body, `/healthz`, `/readyz` and, given a
 * registry, `/metrics`.
 */
export function createHttpApp(settings: HttpAppSettings): Koa<HttpState> {
  const app = new Koa<HttpState>();
  app.proxy = settings.trustProxy ?? false;
  app.silent = true;

  app.use(async (ctx: HttpContext, next: Next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = settings.logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } catch (error) {
      renderError(ctx, error);
    } finally {
      if (settings.accessLog !== false && ctx.path !== '/healthz' && ctx.path !== '/readyz' && ctx.path !== '/metrics') {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        ctx.state.log.info({ method: ctx.method, path: pathOnly(ctx.originalUrl), status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
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

/** Renders any error as the `error` body; unknown errors are logged and become a bare 500. */
export function renderError(ctx: HttpContext, error: unknown): void {
  let appError: AppError;
  if (error instanceof AppError) {
    appError = error;
  } else if (isHttpError(error) && error.status < 500 && error.expose) {
    appError = new AppError(error.status, codeForStatus(error.status), error.message);
  } else {
    ctx.state.log.error({ err: error }, 'unhandled error');
    appError = new AppError(500, 'internal_error', 'internal error');
  }
  ctx.status = appError.status;
  ctx.type = 'application/json';
  if (appError.status === 429 && typeof appError.details?.retryAfterSeconds === 'number') {
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
