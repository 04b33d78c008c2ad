import { routes, type RouteDefinition } from './routes.js';
import { ErrorBody } from './schemas/common.js';
import type { TSchema } from '@sinclair/typebox';

const STATUS_TEXT: Record<number, string> = {
  400: 'invalid input; the offending fields are in error.details',
  401: 'missing or invalid API key',
  402: "the organisation's plan has no API access for this product",
  403: 'the key lacks the permission this operation needs',
  404: 'unknown id, or an id of another tenant',
  409: 'state conflict',
  413: 'request too large',
  415: 'unsupported content type',
  416: 'the Range cannot be satisfied',
  429: 'rate limit exceeded; wait for Retry-After seconds',
  503: 'a tool or service the operation needs is not available now; try again later',
};

/** Removes TypeBox's symbol keys so the schema is plain JSON Schema. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function parameters(route: RouteDefinition): unknown[] {
  const list: unknown[] = [];
  for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
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

function errorStatuses(route: RouteDefinition): number[] {
  const base = route.auth.kind === 'apiKey' ? [401, 403, ...(route.auth.entitlement ? [402] : [])] : route.auth.kind === 'admin' ? [401] : [];
  return [...new Set([...base, ...(route.errors ?? [])])].sort();
}

function operation(route: RouteDefinition): Record<string, unknown> {
  const responses: Record<string, unknown> = {
    [route.success.status]: {
      description: route.success.description,
      ...(route.success.schema ? { content: { 'application/json': { schema: plain(route.success.schema) } } } : {}),
      ...(route.success.stream ? { content: { '*/*': { schema: { type: 'string', format: 'binary' } } } } : {}),
    },
    ...(route.success.stream ? { 206: { description: 'the requested byte range (Range: bytes=…)', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } } } : {}),
  };
  for (const status of errorStatuses(route)) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? 'error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      ...(status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait' } } } : {}),
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
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(route.body) } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of the public API, derived from the route table. */
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
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
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
