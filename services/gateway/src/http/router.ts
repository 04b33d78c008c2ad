import Router from '@koa/router';
import type { Next } from 'koa';
import {
  badRequest,
  callRpc,
  JsonText,
  NO_TENANT,
  okReply,
  readJsonBody,
  replyBodyBudget,
  unauthorized,
  type HttpContext,
  type CallContext,
  type HttpState,
  type Operation,
  type RpcCallSettings,
  type RpcRequest,
} from '@catalog/platform';
import { buildOpenApiDocument, routes, type RouteDefinition, type ServiceName } from '@catalog/contracts';
import { admit, authenticateKey, authorize, presentedKey, type KeyStore, type PresentedKey } from '../domain/authenticate.js';
import { tokensEqual } from '../domain/api-keys.js';
import { forwardedHeaders, requireOrganization } from './forwarding.js';
import { idempotentReply, type Reply } from './idempotency.js';
import { answerTimeoutMs } from './long-poll.js';
import type { IdempotencyStore } from '../domain/idempotency.js';

export interface RouterSettings {
  /** Where each request's key is checked (the replica in memory, or the database). */
  keys: KeyStore;
  rpc: RpcCallSettings & { timeoutMs: number };
  /** Longest a long poll's answer is waited for (below the listener's idle timeout). */
  longPollCeilingMs: number;
  adminToken: string;
  bodyLimitBytes: number;
  /** A JSON body must arrive whole within this once its reading starts (HTTP_REQUEST_TIMEOUT_MS). */
  bodyTimeoutMs: number;
  /** Whether an organisation exists (admin routes other services answer name one; decision 0085). */
  organizationExists: (id: string) => Promise<boolean>;
  /** Operations the gateway answers itself (the admin area). */
  localOperations: readonly Operation[];
  /** Where the Idempotency-Keys of the create routes are kept (decision 0119). */
  idempotency: IdempotencyStore;
  /**
   * The key a request presents through the library page's session (decision 0153), set only on
   * the page's own calls (`/app/api/…`); every other request presents its key in `Authorization`.
   */
  pageSession?: (ctx: HttpContext) => PresentedKey | undefined;
  /** Streams the answer of a `success.stream` operation (its reply body is `{location}`, from `service`) to the client. */
  stream?: (ctx: HttpContext, reply: unknown, service: ServiceName) => Promise<void>;
}

/** `/api/v1/catalog/entities/{id}` → `/api/v1/catalog/entities/:id` */
function koaPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function flattenQuery(query: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) throw badRequest('invalid_query', `query parameter ${key} is given more than once`, { parameter: key });
    flat[key] = value;
  }
  return flat;
}

/**
 * The public router, derived from the route table: for each operation, authenticate (API key or
 * admin token), authorise (403 permission, 402 plan), read the JSON body, then call the owning
 * service over NATS and relay its status and body, or answer locally (the admin area). The
 * request is checked against the operation's schemas once, at the edge of the service that
 * answers it (`defineOperation`), the gateway included for its own operations.
 */
export function publicRouter(settings: RouterSettings): Router<HttpState> {
  const router = new Router<HttpState>();
  const openApi = JSON.stringify(buildOpenApiDocument());
  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = openApi;
  });
  for (const route of routes as readonly RouteDefinition[]) {
    const local =
      route.service === 'gateway' ? settings.localOperations.find((o) => o.definition.operationId === route.operationId) : undefined;
    if (route.service === 'gateway' && !local) throw new Error(`no gateway operation for ${route.operationId}`);
    router.register(koaPath(route.path), [route.method], operationHandler(settings, route, local));
  }
  return router;
}

function operationHandler(settings: RouterSettings, route: RouteDefinition, local: Operation | undefined) {
  const auth = route.auth;
  const limit =
    route.rateLimit && auth.kind === 'apiKey'
      ? {
          scope: route.operationId,
          perMinute: route.rateLimit.perMinute,
          permission: auth.permission,
          product: auth.product,
          entitlement: auth.entitlement,
        }
      : null;
  return async (ctx: HttpContext, _next: Next): Promise<void> => {
    let call: CallContext = { tenantId: NO_TENANT, keyId: null, sourceSystem: 'admin', requestId: ctx.state.requestId };
    if (route.auth.kind === 'apiKey') {
      const presented = settings.pageSession?.(ctx) ?? presentedKey(ctx.get('authorization') || undefined);
      const caller = await authenticateKey(settings.keys, presented, limit);
      authorize(caller, route.auth.permission, route.auth.product, route.auth.entitlement);
      if (limit) admit(caller, limit.perMinute);
      call = {
        tenantId: caller.tenantId,
        keyId: caller.keyId,
        permissions: caller.permissions,
        sourceSystem: caller.sourceSystem,
        requestId: ctx.state.requestId,
      };
    } else if (route.auth.kind === 'admin') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
      if (!match || !tokensEqual(match[1]!, settings.adminToken)) throw unauthorized('missing or invalid admin token');
    }
    const body = route.body ? await readJsonBody(ctx, settings.bodyLimitBytes, { timeoutMs: settings.bodyTimeoutMs }) : refuseBody(ctx);
    const headers = forwardedHeaders(route, ctx);
    const request: RpcRequest = {
      params: ctx.params as Record<string, string>,
      query: flattenQuery(ctx.query),
      ...(headers ? { headers } : {}),
      body,
    };
    const run = (): Promise<Reply> => dispatch(settings, route, local, request, call);
    const reply = route.idempotent ? await idempotentReply(settings.idempotency, route, ctx, call, request, run) : await run();
    // A large body of a `streamedWhenLarge` operation comes as 303 {location}, streamed like a download (decision 0113).
    if (route.success.stream || (route.success.streamedWhenLarge && reply.status === 303)) {
      if (!settings.stream) throw new Error(`no stream handler for ${route.operationId}`);
      await settings.stream(ctx, reply.body instanceof JsonText ? reply.body.parse() : reply.body, route.service);
      return;
    }
    for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
    respond(ctx, reply.status, reply.body);
  };
}

/** Answers the operation: the gateway itself (the admin area), or its service over the bus. */
async function dispatch(
  settings: RouterSettings,
  route: RouteDefinition,
  local: Operation | undefined,
  request: RpcRequest,
  call: CallContext,
): Promise<Reply> {
  if (local) {
    const result = await local.handle(request, call, { maxBodyBytes: replyBodyBudget(settings.rpc.nc) });
    return { status: result.status ?? route.success.status, body: result.body };
  }
  if (route.auth.kind === 'admin') await requireOrganization(settings.organizationExists, route, request.params);
  const timeoutMs = answerTimeoutMs(route, request.query, settings.rpc.timeoutMs, settings.longPollCeilingMs);
  return okReply(await callRpc({ ...settings.rpc, timeoutMs }, route.service, route.operationId, request, call));
}

/**
 * An operation that takes no body: none is read (so no size, type or time limit of a body applies
 * to it), and one that is sent is 400 `invalid_body`, as the operation's checks would say it.
 */
function refuseBody(ctx: HttpContext): undefined {
  const length = ctx.get('content-length');
  if ((length === '' || length === '0') && !ctx.get('transfer-encoding')) return undefined;
  ctx.req.resume();
  throw badRequest('invalid_body', 'invalid body', { fields: [{ location: 'body', path: '/', message: 'this operation takes no body' }] });
}

function respond(ctx: HttpContext, status: number, body: unknown): void {
  ctx.status = status;
  if (status === 204) {
    ctx.body = null;
    return;
  }
  if (body instanceof JsonText) {
    // JSON the service already serialised (a feed page): written as it came, without a copy (a
    // page is ~200 KB; every copy is external memory that brings V8's next full GC closer).
    const bytes = body.bytes();
    ctx.type = 'application/json';
    ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return;
  }
  ctx.body = body ?? null;
}
