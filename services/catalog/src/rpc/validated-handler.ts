import { requestValidator, routeById } from '@catalog/contracts';
import {
  AppError,
  badRequest,
  isUuid,
  notFound,
  type CallContext,
  type RpcHandler,
  type RpcReplyLimits,
  type RpcResult,
} from '@catalog/platform';

export interface ValidatedRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface OperationSettings {
  /**
   * What the path parameters name, for the 404 of an unknown or malformed one: one name for all
   * ("entity"), or one per parameter (`{id: 'entity', versionId: 'version'}`).
   */
  resource: string | Record<string, string>;
  handle: (request: ValidatedRequest, call: CallContext, reply: RpcReplyLimits) => Promise<RpcResult>;
}

/**
 * Wraps an operation of the route table: the request is checked again against the route's schemas
 * (the gateway did so already; this keeps the service safe for any other caller and applies the
 * schema defaults), with the gateway's answers: a bad path parameter is an unknown resource (404),
 * a bad query or body is 400 with the offending fields. Beyond the schemas, what Postgres would
 * refuse with an error is refused here first: ids must be plain UUIDs (ajv's uuid format also
 * admits a `urn:uuid:` prefix), strings must not hold NUL characters, and the tenant of the call
 * context must be a UUID.
 */
export function validatedHandler(operationId: string, settings: OperationSettings): RpcHandler {
  const validator = requestValidator(routeById(operationId));
  const resourceOf = (param: string | undefined): string =>
    typeof settings.resource === 'string'
      ? settings.resource
      : ((param !== undefined ? settings.resource[param] : undefined) ?? 'resource');
  return async (request, call, reply) => {
    if (!isUuid(call.tenantId)) throw new AppError(400, 'bad_envelope', 'the call context carries no valid tenant id');
    const raw = (typeof request === 'object' && request !== null ? request : {}) as Partial<ValidatedRequest>;
    const checked = validator.validate({
      params: isRecord(raw.params) ? (raw.params as Record<string, string>) : {},
      query: isRecord(raw.query) ? raw.query : {},
      body: raw.body ?? undefined,
    });
    if (!checked.ok) {
      if (checked.part === 'params') throw notFound(resourceOf(checked.issues[0]?.path.split('/')[1]));
      throw badRequest(checked.part === 'query' ? 'invalid_query' : 'invalid_body', `invalid ${checked.part}`, { fields: checked.issues });
    }
    for (const [name, value] of Object.entries(checked.params)) {
      if ((name === 'id' || name.endsWith('Id')) && !isUuid(value)) throw notFound(resourceOf(name));
    }
    const nulParam = nulPath(checked.params);
    if (nulParam !== null) throw notFound(resourceOf(nulParam.split('/')[1]));
    for (const part of ['query', 'body'] as const) {
      const path = nulPath(checked[part]);
      if (path !== null) {
        throw badRequest(part === 'query' ? 'invalid_query' : 'invalid_body', `invalid ${part}`, {
          fields: [{ location: part, path, message: 'must not contain NUL characters' }],
        });
      }
    }
    return settings.handle({ params: checked.params, query: checked.query, body: checked.body }, call, reply);
  };
}

/**
 * The JSON pointer of the first string holding a NUL character (U+0000), which JSON allows but
 * Postgres text cannot store, or null when there is none.
 */
function nulPath(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '/' : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = nulPath(item, `${path}/${index}`);
      if (found !== null) return found;
    }
    return null;
  }
  if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      const found = nulPath(item, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (found !== null) return found;
    }
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
