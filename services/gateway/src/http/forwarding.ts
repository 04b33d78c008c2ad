import { badRequest, isUuid, notFound, type HttpContext } from '@catalog/platform';
import type { RouteDefinition } from '@catalog/contracts';

/**
 * The request headers a route names in the table (`headers`, an object schema of lower-case
 * names, e.g. `idempotency-key`), read from the request to forward with it; undefined for a route
 * that names none. A header sent twice is refused (400 invalid_header), as a repeated query
 * parameter is: which one counts would be a guess.
 */
export function forwardedHeaders(route: RouteDefinition, ctx: HttpContext): Record<string, string> | undefined {
  const names = Object.keys((route.headers as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  if (names.length === 0) return undefined;
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = ctx.req.headersDistinct[name];
    if (value === undefined) continue;
    if (value.length > 1) throw badRequest('invalid_header', `header ${name} is given more than once`, { header: name });
    headers[name] = value[0]!;
  }
  return headers;
}

/**
 * An admin route answered by another service (the analysis service's credits) that names an
 * organisation (`{orgId}`) is forwarded only when the organisation exists: the gateway owns them,
 * and an unknown one is 404 here as on the gateway's own admin routes. The service acts for that
 * organisation (its `orgId` is the tenant).
 */
export async function requireOrganization(
  organizationExists: (id: string) => Promise<boolean>,
  route: RouteDefinition,
  params: Record<string, string>,
): Promise<void> {
  if (route.service === 'gateway' || params.orgId === undefined) return;
  if (!isUuid(params.orgId) || !(await organizationExists(params.orgId))) throw notFound(route.resources?.orgId ?? 'organization');
}
