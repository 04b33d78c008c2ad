import type { Next } from 'koa';
import { AppError, unauthorized, type HttpContext } from '@catalog/platform';
import type { AppSessions } from '../domain/app-sessions.js';
import type { PresentedKey } from '../domain/authenticate.js';
import type { SessionCookie } from './session-cookie.js';

/** Where the page opens, reads and ends its session. */
export const SESSION_PATH = '/app/session';
/** The page's calls of the API: `/app/api/…` is `/api/…` under the session's key. */
const API_PREFIX = '/app/api/';
/** The header every call through the session carries: a page of another origin cannot send it without a CORS preflight, which the gateway never grants. */
export const PAGE_HEADER = 'x-catalog-app';

export interface PageSessions {
  /** Koa middleware for `/app/session` and `/app/api/…`; anything else passes on. */
  middleware: (ctx: HttpContext, next: Next) => Promise<void>;
  /** The key a request presents through its page session (a call under `/app/api/`), if it is one. */
  presentedBy(ctx: HttpContext): PresentedKey | undefined;
}

const crossSite = (message: string): AppError => new AppError(403, 'cross_site_request', message);

/**
 * A call through the session must come from the page itself (decision 0153): the cookie is
 * `SameSite=Strict`, and besides the request carries `X-Catalog-App: 1`, is not marked by the
 * browser as from another origin (`Sec-Fetch-Site`), and any `Origin` it names is this host.
 */
function requirePageRequest(ctx: HttpContext): void {
  if (ctx.get(PAGE_HEADER) !== '1') throw crossSite(`calls through the page's session must send ${PAGE_HEADER}: 1`);
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin')
    throw crossSite(`a call through the page's session must come from the page (Sec-Fetch-Site: ${site})`);
  const origin = ctx.get('origin');
  if (origin && hostOf(origin) !== ctx.host) throw crossSite("a call through the page's session must come from this origin");
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/**
 * The library page's session over HTTP (decision 0153). `/app/session`: POST with
 * `Authorization: Bearer sk_…` opens one (201, the cookie set), GET says whether the cookie's is
 * open (200, 401), DELETE ends it (204). `/app/api/…`: the API call `/api/…` with the session's
 * key, for the routes after this; no session is 401. The API itself never reads the cookie.
 */
export function pageSessions(sessions: AppSessions, cookie: SessionCookie, idleMs: number): PageSessions {
  const marked = new WeakMap<HttpContext, PresentedKey>();

  const ended = (ctx: HttpContext, token: string | undefined): AppError => {
    if (token !== undefined) cookie.clear(ctx);
    return unauthorized('no session of the page: sign in again');
  };

  async function session(ctx: HttpContext): Promise<void> {
    const token = cookie.read(ctx);
    if (ctx.method === 'POST') {
      const opened = await sessions.open(ctx.get('authorization') || undefined, token);
      cookie.set(ctx, opened.token);
      ctx.status = 201;
      ctx.body = { keyId: opened.keyId, expiresAt: opened.expiresAt.toISOString(), idleTimeoutSeconds: Math.floor(idleMs / 1000) };
    } else if (ctx.method === 'GET') {
      const key = token === undefined ? undefined : await sessions.use(token);
      if (!key) throw ended(ctx, token);
      ctx.body = { keyId: key.keyId, expiresAt: key.expiresAt.toISOString(), idleTimeoutSeconds: Math.floor(idleMs / 1000) };
    } else if (ctx.method === 'DELETE') {
      if (token !== undefined) {
        await sessions.end(token);
        cookie.clear(ctx);
      }
      ctx.status = 204;
    } else {
      ctx.set('Allow', 'GET, POST, DELETE');
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on this path`, { allowed: ['GET', 'POST', 'DELETE'] });
    }
  }

  return {
    async middleware(ctx, next) {
      const isSession = ctx.path === SESSION_PATH;
      if (!isSession && !ctx.path.startsWith(API_PREFIX)) return next();
      ctx.set('Cache-Control', 'no-store');
      requirePageRequest(ctx);
      if (isSession) return session(ctx);
      const token = cookie.read(ctx);
      const key = token === undefined ? undefined : await sessions.use(token);
      if (!key) throw ended(ctx, token);
      marked.set(ctx, key);
      ctx.path = ctx.path.slice('/app'.length);
      return next();
    },
    presentedBy: (ctx) => marked.get(ctx),
  };
}
