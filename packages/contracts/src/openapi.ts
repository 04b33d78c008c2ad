import { routes, type RouteDefinition } from './routes.js';
import { DOCUMENTED_ONLY, ErrorBody } from './schemas/common.js';
import { IdempotencyKeyHeaders, IDEMPOTENT_REPLAYED_HEADER } from './schemas/idempotency.js';
import type { TSchema } from '@sinclair/typebox';

const STATUS_TEXT: Record<number, string> = {
  400: 'invalid input (body, query or a parameter); the offending fields are in error.details (the first 20 as fields, with fieldCount when there are more)',
  401: 'missing or invalid API key (admin area: admin token)',
  402: "the organisation's plan has no API access for this product",
  403: 'the key lacks the permission this operation needs',
  404: 'unknown id, or an id of another tenant',
  408: 'the request body arrived too slowly (body_timeout); the connection is closed',
  409:
    'state conflict; on a route that takes Idempotency-Key also idempotency_key_reused (the key named another request) and ' +
    'idempotency_key_in_progress (the first request with the key is still running; retry later)',
  413: 'request too large',
  415: 'unsupported content type',
  416: 'the Range cannot be satisfied',
  429: 'rate limit exceeded (per client address on every request; per key where the operation has a limit); wait for Retry-After seconds',
  503: 'the service that answers this operation, or a tool it needs, is not available now (service_unavailable); try again later',
  504: 'the service that answers this operation did not answer in time (upstream_timeout)',
};

/**
 * Plain JSON Schema of a TypeBox schema: its symbol keys removed, and the keywords it documents
 * only (DOCUMENTED_ONLY) merged in; an `enum` among them replaces the schema's `pattern`.
 */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (_key, value: unknown) => {
    if (typeof value !== 'object' || value === null || !(DOCUMENTED_ONLY in value)) return value;
    const { [DOCUMENTED_ONLY]: documented, ...rest } = value as Record<string, unknown>;
    const keywords = documented as Record<string, unknown>;
    if ('enum' in keywords) delete rest.pattern;
    return { ...rest, ...keywords };
  }) as Record<string, unknown>;
}

function parameters(route: RouteDefinition): unknown[] {
  const list: unknown[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
    // An idempotent route that forwards the key to its service names it in `headers` already.
    ['header', route.idempotent && !route.headers ? IdempotencyKeyHeaders : route.headers],
  ] as const) {
    if (!schema) continue;
    const object = plain(schema) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      list.push({
        name,
        in: where,
        required: where === 'path' || (object.required ?? []).includes(name),
        schema: property,
        ...(typeof property.description === 'string' ? { description: property.description } : {}),
      });
    }
  }
  return list;
}

/**
 * Every error status an operation can answer: 400 (any operation: unknown or repeated query
 * parameters, a body where none is taken), 429 (the per-address limit runs before everything),
 * the authentication ones, 404 where a path has parameters (a malformed id is an unknown id),
 * 408/413/415 where a body is read, 503/504 where another service answers, and the operation's own.
 */
function errorStatuses(route: RouteDefinition): number[] {
  const auth =
    route.auth.kind === 'apiKey' ? [401, 403, ...(route.auth.entitlement ? [402] : [])] : route.auth.kind === 'admin' ? [401] : [];
  const statuses = [
    400,
    429,
    ...auth,
    ...(route.params ? [404] : []),
    ...(route.body ? [408, 413, 415] : []),
    ...(route.service === 'gateway' ? [] : [503, 504]),
    ...(route.idempotent ? [409] : []),
    ...(route.errors ?? []),
  ];
  return [...new Set(statuses)].sort((a, b) => a - b);
}

/** The header of an answer replayed for a repeated Idempotency-Key (decision 0119). */
const REPLAYED = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    schema: { type: 'string', enum: ['true'] },
    description: 'present when this is the first answer to an earlier request with the same Idempotency-Key, replayed',
  },
};

/** Retry-After of a 429; the replay header of an idempotent route's 4xx (it is stored and replayed). */
function errorHeaders(route: RouteDefinition, status: number): { headers?: Record<string, unknown> } {
  const headers = {
    ...(status === 429 ? { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } } : {}),
    ...(route.idempotent && status < 500 ? REPLAYED : {}),
  };
  return Object.keys(headers).length > 0 ? { headers } : {};
}

const BINARY = { '*/*': { schema: { type: 'string', format: 'binary' } } };

function successResponses(route: RouteDefinition): Record<string, unknown> {
  const { success } = route;
  if (success.stream) {
    return {
      [success.status]: { description: success.description, content: BINARY },
      206: { description: 'the requested byte range (Range: bytes=…)', content: BINARY },
      304: { description: 'not modified (If-None-Match matched the ETag)' },
    };
  }
  const answer = {
    ...(route.idempotent ? { headers: REPLAYED } : {}),
    ...(success.schema ? { content: { 'application/json': { schema: plain(success.schema) } } } : {}),
  };
  const also = success.alsoStatus;
  return {
    [success.status]: { description: success.description, ...answer },
    ...(also ? { [also.status]: { description: also.description, ...answer } } : {}),
  };
}

function operation(route: RouteDefinition): Record<string, unknown> {
  const responses = successResponses(route);
  for (const status of errorStatuses(route)) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? 'error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      ...errorHeaders(route, status),
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth.kind === 'apiKey'
      ? { security: [{ apiKey: [] }], 'x-permission': route.auth.permission, 'x-product': route.auth.product }
      : route.auth.kind === 'admin'
        ? { security: [{ adminToken: [] }] }
        : { security: [] }),
    parameters: parameters(route),
    ...(route.body
      ? { requestBody: { required: !route.bodyOptional, content: { 'application/json': { schema: plain(route.body) } } } }
      : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the public API, derived from the route table. Its server is `/` (the
 * host that serves the document, as a relative URL resolves) unless `serverUrl` names another; the
 * API is proprietary (decision 0139).
 */
export function buildOpenApiDocument(options: { serverUrl?: string; version?: string } = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Catalog service API',
      version: options.version ?? '1.0.0',
      description: 'Musical works, their versions and files, analyses and a polled events feed, for radio and broadcast.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: options.serverUrl ?? '/', description: options.serverUrl ? 'the API' : 'this deployment (the host serving this document)' },
    ],
    paths,
    components: {
      schemas: { Error: plain(ErrorBody) },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'API key: `Authorization: Bearer sk_…`' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'the ADMIN_TOKEN of the deployment' },
      },
    },
  };
}
