import type { Next } from 'koa';
import { AppError, type HttpContext } from '@catalog/platform';

interface PathTemplate {
  pattern: RegExp;
  /** Segments written out, not parameters: the more, the more specific (`/entities/batch` over `/entities/{id}`). */
  literalSegments: number;
  methods: Set<string>;
}

/** Which methods a path answers, by the most specific of the route table's path templates that match it. */
export interface PathMethods {
  /** The methods of `path` (with HEAD where GET is); empty for a path no template matches. */
  allowed(path: string): string[];
}

/** A parameter segment: `{id}` (OpenAPI) or `:id` (the router's form). */
const isParameter = (segment: string): boolean => /^(?:\{[A-Za-z0-9_]+\}|:[A-Za-z0-9_]+)$/.test(segment);

/** `/api/v1/catalog/entities/{id}` → a pattern of its segments, a parameter matching one segment. */
function templatePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (isParameter(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * The methods at each path of `operations` (method, and path in OpenAPI or router form). As in OpenAPI, a path
 * written out wins over a templated one that also matches it: `PATCH /entities/batch` is a method
 * the path does not have (405), not an update of an entity with the id "batch".
 */
export function pathMethods(operations: ReadonlyArray<{ method: string; path: string }>): PathMethods {
  const templates = new Map<string, PathTemplate>();
  for (const { method, path } of operations) {
    let template = templates.get(path);
    if (!template) {
      template = {
        pattern: templatePattern(path),
        literalSegments: path.split('/').filter((s) => s && !isParameter(s)).length,
        methods: new Set(),
      };
      templates.set(path, template);
    }
    template.methods.add(method.toUpperCase());
    if (method.toUpperCase() === 'GET') template.methods.add('HEAD');
  }
  const all = [...templates.values()];
  return {
    allowed(path) {
      const matching = all.filter((t) => t.pattern.test(path));
      if (matching.length === 0) return [];
      const best = Math.max(...matching.map((t) => t.literalSegments));
      return [...new Set(matching.filter((t) => t.literalSegments === best).flatMap((t) => [...t.methods]))];
    },
  };
}

/**
 * Koa middleware: a known path asked with a method it does not have is 405 `method_not_allowed`
 * with `Allow`, before any route runs; an unknown path goes on (and ends as 404 route_not_found).
 */
export function methodNotAllowed(methods: PathMethods) {
  return async function refuseUndeclaredMethods(ctx: HttpContext, next: Next): Promise<void> {
    const allowed = methods.allowed(ctx.path);
    if (allowed.length > 0 && !allowed.includes(ctx.method)) {
      ctx.set('Allow', allowed.join(', '));
      throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on this path`, { allowed });
    }
    return next();
  };
}
