import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, IdempotencyKey, type RouteDefinition } from '@catalog/contracts';
import { badRequest, canonicalJson, JsonText, type CallContext, type HttpContext, type RpcRequest } from '@catalog/platform';
import { idempotently, type Answer, type IdempotencyStore } from '../domain/idempotency.js';

/** An operation's reply as the router relays it. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string> | undefined;
}

const KEY_FORMAT = new RegExp(IdempotencyKey.pattern!);

/**
 * The request's Idempotency-Key: undefined without one; 400 invalid_header when it is sent twice
 * or is not 1-255 visible ASCII characters.
 */
export function idempotencyKeyOf(ctx: HttpContext): string | undefined {
  const values = ctx.req.headersDistinct[IDEMPOTENCY_KEY_HEADER];
  if (values === undefined) return undefined;
  const header = { header: IDEMPOTENCY_KEY_HEADER };
  if (values.length > 1) throw badRequest('invalid_header', `header ${IDEMPOTENCY_KEY_HEADER} is given more than once`, header);
  const key = values[0]!;
  if (key.length > IdempotencyKey.maxLength! || !KEY_FORMAT.test(key)) {
    throw badRequest('invalid_header', `header ${IDEMPOTENCY_KEY_HEADER} must be 1-255 visible ASCII characters (no spaces)`, header);
  }
  return key;
}

/** sha256 of what the request asks: method, path, query and body (keys sorted). */
export function fingerprintOf(method: string, path: string, request: RpcRequest): Buffer {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(request.query)}\n${canonicalJson(request.body ?? null)}`)
    .digest();
}

/**
 * `run` for a create route (decision 0119): once per Idempotency-Key of the organisation (the
 * admin area is one scope of its own), replayed to retries with `Idempotent-Replayed: true`,
 * a 4xx replayed as well. Without a key, `run` runs.
 */
export async function idempotentReply(
  store: IdempotencyStore,
  route: RouteDefinition,
  ctx: HttpContext,
  call: CallContext,
  request: RpcRequest,
  run: () => Promise<Reply>,
): Promise<Reply> {
  const key = idempotencyKeyOf(ctx);
  if (key === undefined) return run();
  const scope = route.auth.kind === 'apiKey' ? call.tenantId : 'admin';
  const named = { scope, key, fingerprint: fingerprintOf(route.method, ctx.path, request) };
  const outcome = await idempotently(store, named, async () => answerOf(await run()));
  if (outcome.replayed) ctx.set(IDEMPOTENT_REPLAYED_HEADER, 'true');
  if (outcome.error) throw outcome.error;
  const answer = outcome.answer!;
  return { status: answer.status, body: answer.json === null ? null : new JsonText(answer.json), headers: answer.headers };
}

function answerOf(reply: Reply): Answer {
  const { body } = reply;
  const json =
    body instanceof JsonText
      ? Buffer.from(body.bytes()).toString('utf8')
      : body === undefined || body === null
        ? null
        : JSON.stringify(body);
  return { status: reply.status, json, headers: reply.headers ?? {} };
}
