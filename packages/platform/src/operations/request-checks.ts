import { requestValidator, type OperationBase } from '@catalog/contracts';
import { AppError, badRequest, notFound } from '../support/errors.js';
import { cutPath, fieldDetails } from '../support/field-details.js';
import { isUuid } from '../support/ids.js';
import type { RpcRequest } from '../bus/rpc.js';
import { uuidLowerCaser } from './uuid-case.js';

/** A request that passed its operation's schemas, with their defaults applied. */
export interface CheckedRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, unknown>;
  body: unknown;
}

/**
 * The checks of one operation's requests, compiled once from its schemas in the table: a bad path
 * parameter is an unknown resource (404, named by the operation's `resources`), a bad query or body
 * is 400 with the offending fields (the first of them: fieldDetails). Beyond the schemas, what
 * Postgres would refuse with an error is refused here first: ids must be plain UUIDs (ajv's uuid
 * format also admits a `urn:uuid:` prefix), strings must not hold NUL characters, and a
 * tenant-scoped call must carry a UUID tenant. Ids are then lower-cased, here and nowhere else
 * (uuidLowerCaser): the path's ids and every `format: 'uuid'` field of the query and the body.
 */
export function requestChecks(operation: OperationBase): (request: unknown, tenantId: string) => CheckedRequest {
  const validator = requestValidator(operation);
  const resourceOf = (param: string | undefined): string => (param !== undefined ? operation.resources?.[param] : undefined) ?? 'resource';
  // Admin routes and operations that say so act for no tenant; every other one needs a UUID tenant.
  const adminRoute = 'auth' in operation && (operation as { auth: { kind: string } }).auth.kind !== 'apiKey';
  const tenantScoped = operation.tenantScoped !== false && !adminRoute;
  const lowerQuery = uuidLowerCaser(operation.query);
  const lowerBody = uuidLowerCaser(operation.body);
  return (request, tenantId) => {
    if (tenantScoped && !isUuid(tenantId)) throw new AppError(400, 'bad_envelope', 'the call context carries no valid tenant id');
    const raw = (isRecord(request) ? request : {}) as Partial<RpcRequest>;
    const checked = validator.validate({
      params: isRecord(raw.params) ? (raw.params as Record<string, string>) : {},
      query: isRecord(raw.query) ? raw.query : {},
      headers: isRecord(raw.headers) ? raw.headers : {},
      // An internal caller writes `body: null` for "no body"; to an operation that takes one, null is a bad body.
      body: raw.body === null && !operation.body ? undefined : raw.body,
    });
    if (!checked.ok) {
      if (checked.part === 'params') throw notFound(resourceOf(checked.issues[0]?.path.split('/')[1]));
      throw badRequest(
        `invalid_${checked.part === 'headers' ? 'header' : checked.part}`,
        `invalid ${checked.part}`,
        fieldDetails(checked.issues),
      );
    }
    for (const [name, value] of Object.entries(checked.params)) {
      if (!(name === 'id' || name.endsWith('Id'))) continue;
      if (!isUuid(value)) throw notFound(resourceOf(name));
      checked.params[name] = value.toLowerCase();
    }
    const nulParam = nulPath(checked.params);
    if (nulParam !== null) throw notFound(resourceOf(nulParam.split('/')[1]));
    for (const part of ['query', 'headers', 'body'] as const) {
      const path = nulPath(checked[part]);
      if (path !== null) {
        throw badRequest(`invalid_${part === 'headers' ? 'header' : part}`, `invalid ${part}`, {
          fields: [{ location: part, path: cutPath(path), message: 'must not contain NUL characters' }],
        });
      }
    }
    return {
      params: checked.params,
      query: lowerQuery ? (lowerQuery(checked.query) as Record<string, unknown>) : checked.query,
      headers: checked.headers,
      body: lowerBody ? lowerBody(checked.body) : checked.body,
    };
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
