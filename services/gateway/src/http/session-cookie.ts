import type { HttpContext } from '@catalog/platform';

/**
 * When the page session's cookie is `Secure`: `auto`, when the request came over TLS as the
 * gateway sees it (its own listener, or `X-Forwarded-Proto: https` from a trusted proxy,
 * `TRUST_PROXY_HOPS` > 0); `always`, on every request (a TLS front that does not say so).
 */
export type SecureCookies = 'auto' | 'always';

/** The library page's session cookie (decision 0153): where it is read from and how it is written. */
export interface SessionCookie {
  /** The token the request's cookie carries, if any. */
  read(ctx: HttpContext): string | undefined;
  set(ctx: HttpContext, token: string): void;
  /** Tells the browser to drop the cookie. */
  clear(ctx: HttpContext): void;
}

/** Sent to the page's own paths only: the API under `/api` never sees it. */
const PATH = '/app';

/**
 * The cookie: `HttpOnly` (no script reads it), `SameSite=Strict`, path `/app`, and no expiry of
 * its own (it goes when the browser closes; the gateway ends the session by its idle and absolute
 * times). `Secure` ones are named `__Secure-…`, which a browser accepts only from a TLS origin, so
 * a plain-HTTP response cannot plant one.
 */
export function sessionCookie(secureCookies: SecureCookies): SessionCookie {
  const secure = (ctx: HttpContext): boolean => secureCookies === 'always' || ctx.secure;
  const nameOf = (ctx: HttpContext): string => (secure(ctx) ? '__Secure-catalog_app' : 'catalog_app');
  const attributes = (ctx: HttpContext): string => `Path=${PATH}; HttpOnly; SameSite=Strict${secure(ctx) ? '; Secure' : ''}`;
  return {
    read(ctx) {
      const name = nameOf(ctx);
      for (const pair of ctx.get('cookie').split(';')) {
        const at = pair.indexOf('=');
        if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
      }
      return undefined;
    },
    set(ctx, token) {
      ctx.append('Set-Cookie', `${nameOf(ctx)}=${token}; ${attributes(ctx)}`);
    },
    clear(ctx) {
      ctx.append('Set-Cookie', `${nameOf(ctx)}=; Max-Age=0; ${attributes(ctx)}`);
    },
  };
}
