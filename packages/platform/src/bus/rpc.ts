import { Svcm, type Service, type ServiceMsg } from '@nats-io/services';
import { headers as natsHeaders, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { AppError, type ErrorPayload } from '../support/errors.js';
import { unexpectedErrorAnswer } from './failure-kind.js';
import type { Logger } from '../observability/logger.js';
import { platformCounter, processMetrics, type MetricsRegistry } from '../observability/metrics.js';
import { sleep } from '../support/sleep.js';
import { SpanKind, withSpan } from '../observability/tracing.js';
import { openCallContext, sealCallContext, type CallContext, type CallContextKeys } from './context.js';
import { headerBytes, maxPayload, replyBodyBudget } from './payload-size.js';
import type { Subjects } from './subjects.js';

/** The payload of a synchronous call: the HTTP request, already validated by the gateway. */
export interface RpcRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The request headers the operation's table entry names (`headers`), lower-case; absent when it names none. */
  headers?: Record<string, string>;
  body: unknown;
}

export interface RpcResult {
  status?: number;
  /** A JSON value, or a `JsonText` already serialised (sent on as it is). */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A reply body that is already JSON text (built by the database, say). It travels as the raw
 * payload of the reply, and a caller that passes JSON through (the gateway) writes it to the HTTP
 * response without parsing and serialising it again.
 */
export class JsonText {
  constructor(readonly json: string | Uint8Array) {}

  bytes(): Uint8Array {
    return typeof this.json === 'string' ? encoder.encode(this.json) : this.json;
  }

  parse(): unknown {
    return JSON.parse(typeof this.json === 'string' ? this.json : decoder.decode(this.json));
  }
}

export type RpcOkReply = { ok: true; status: number; body: unknown; headers?: Record<string, string> };
export type RpcReply = RpcOkReply | { ok: false; error: ErrorPayload };

/** What a handler must know about the reply it builds. */
export interface RpcReplyLimits {
  /**
   * Bytes the reply's body may take: the connection's `max_payload` less room for the envelope.
   * A handler whose reply grows with data (a list) ends its page early to stay within it
   * (decision 0052); a reply that does not fit is answered `reply_too_large` instead.
   */
  maxBodyBytes: number;
}

export type RpcHandler = (request: RpcRequest, call: CallContext, reply: RpcReplyLimits) => Promise<RpcResult>;

export interface RpcServiceSettings {
  nc: NatsConnection;
  subjects: Subjects;
  service: string;
  version: string;
  handlers: Record<string, RpcHandler>;
  logger: Logger;
  metrics?: MetricsRegistry;
  /** Every call's context must be signed with these keys for its subject (decision 0056). */
  callContext: CallContextKeys;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reply headers of a `JsonText` reply, whose payload is the body itself rather than `RpcReply`. */
const RAW_REPLY = { status: 'Catalog-Rpc-Status', headers: 'Catalog-Rpc-Headers' } as const;

/** A service's operations on the bus (`serveRpc`). */
export interface RpcServer {
  /** The NATS service of the endpoints (its name, id and stats). */
  service: Service;
  /**
   * Stops taking calls and answers the ones already taken: the endpoints' subscriptions drain
   * (every call the server routed here before it saw the unsubscribe is still handled), then
   * waits up to `timeoutMs` for the handlers still running to send their replies. Close the
   * connection only after this: a reply sent on a closed connection is lost, and its caller
   * waits out its whole timeout.
   */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Registers a service's operations as NATS service endpoints (`@nats-io/services`), one endpoint
 * per operation id, in a queue group so replicas share the load. Each reply is `RpcReply` JSON.
 */
export async function serveRpc(settings: RpcServiceSettings): Promise<RpcServer> {
  const service = await new Svcm(settings.nc).add({ name: settings.service, version: settings.version, queue: settings.service });
  const running = new Set<Promise<void>>();
  for (const [operation, handler] of Object.entries(settings.handlers)) {
    service.addEndpoint(operation, {
      subject: settings.subjects.rpc(settings.service, operation),
      handler: (err, msg) => {
        if (err) {
          settings.logger.error({ err, operation }, 'rpc endpoint failed');
          return;
        }
        // Nothing a message does may end the process: whatever escapes is logged.
        const call = handleMessage(settings, operation, handler, msg).catch((error: unknown) => {
          settings.logger.error({ err: error, operation }, 'rpc message failed');
        });
        running.add(call);
        void call.finally(() => running.delete(call));
      },
    });
  }
  // The subscriptions must reach the server before anyone is told the service is up.
  await settings.nc.flush();
  return {
    service,
    async stop(timeoutMs = 10_000) {
      await service.stop();
      if (running.size === 0) return;
      const waited = await settleWithin([...running], timeoutMs);
      if (!waited) settings.logger.warn({ unanswered: running.size, timeoutMs }, 'rpc calls still running at stop');
    },
  };
}

/** Whether every promise settled within `timeoutMs`. */
async function settleWithin(promises: Array<Promise<unknown>>, timeoutMs: number): Promise<boolean> {
  const settled = new AbortController();
  try {
    return await Promise.race([Promise.allSettled(promises).then(() => true), sleep(timeoutMs, settled.signal).then(() => false)]);
  } finally {
    settled.abort();
  }
}

async function handleMessage(settings: RpcServiceSettings, operation: string, handler: RpcHandler, msg: ServiceMsg): Promise<void> {
  const envelope = openCallContext(settings.callContext, msg.subject, msg.headers, settings.logger.child({ operation }));
  if (envelope instanceof AppError) {
    respond(settings, operation, msg, failure(envelope), () => settings.logger);
    return;
  }
  // Made only when something is logged: most calls log nothing, and a child logger per call is garbage.
  const log = (): Logger => settings.logger.child({ requestId: envelope.call.requestId, operation });
  const limits: RpcReplyLimits = { maxBodyBytes: replyBodyBudget(settings.nc) };
  const reply = await withSpan(
    `rpc ${settings.service}.${operation}`,
    { kind: SpanKind.SERVER, parent: envelope.trace, attributes: { 'messaging.system': 'nats', 'rpc.method': operation } },
    async (): Promise<RpcReply> => {
      try {
        const request = msg.json<RpcRequest>();
        const result = await handler(request, envelope.call, limits);
        return {
          ok: true,
          status: result.status ?? 200,
          body: result.body ?? null,
          ...(result.headers ? { headers: result.headers } : {}),
        };
      } catch (error) {
        if (error instanceof AppError) return failure(error);
        const answer = unexpectedErrorAnswer(error);
        if (answer.status === 503) log().warn({ err: error }, 'rpc handler met an unavailable dependency');
        else log().error({ err: error }, 'rpc handler failed');
        return failure(answer);
      }
    },
  );
  respond(settings, operation, msg, reply, log);
}

interface EncodedReply {
  data: Uint8Array;
  headers?: MsgHdrs;
}

function encodeReply(reply: RpcReply): EncodedReply {
  if (reply.ok && reply.body instanceof JsonText) {
    const h = natsHeaders();
    h.set(RAW_REPLY.status, String(reply.status));
    if (reply.headers) h.set(RAW_REPLY.headers, JSON.stringify(reply.headers));
    return { data: reply.body.bytes(), headers: h };
  }
  return { data: encoder.encode(JSON.stringify(reply)) };
}

/**
 * Sends the reply. One larger than the connection's `max_payload` (which the client would refuse
 * to send, throwing) is replaced by a `reply_too_large` error; a reply that cannot be sent at all
 * (the connection closed) is logged. Never throws.
 */
function respond(settings: RpcServiceSettings, operation: string, msg: ServiceMsg, reply: RpcReply, log: () => Logger): void {
  const failures = platformCounter(settings.metrics ?? processMetrics, 'rpcFailures');
  try {
    let encoded = encodeReply(reply);
    const bytes = encoded.data.length + headerBytes(encoded.headers);
    const limit = maxPayload(settings.nc);
    if (bytes > limit) {
      log().error({ operation, bytes, maxPayload: limit }, 'reply larger than the bus carries; answering reply_too_large');
      failures.inc({ operation, code: 'reply_too_large' });
      encoded = encodeReply(
        failure(new AppError(500, 'reply_too_large', 'the answer is larger than the service can send; ask for less (a smaller page)')),
      );
    } else if (!reply.ok && reply.error.code === 'internal_error') {
      failures.inc({ operation, code: 'internal_error' });
    }
    msg.respond(encoded.data, encoded.headers ? { headers: encoded.headers } : undefined);
  } catch (error) {
    log().error({ err: error, operation }, 'sending the rpc reply failed');
  }
}

function failure(error: AppError): RpcReply {
  return { ok: false, error: error.toJSON() };
}

export interface RpcCallSettings {
  nc: NatsConnection;
  subjects: Subjects;
  /** Signs the context of every call (decision 0056). */
  callContext: CallContextKeys;
  timeoutMs?: number;
  /** Leave a reply that is already JSON text as a `JsonText` body instead of parsing it. */
  passJsonThrough?: boolean;
}

/**
 * Calls an operation of a service and returns its reply. Transport failures (no responders,
 * timeout) become 503/504 AppErrors so the gateway answers with the error body; a request larger
 * than the connection's `max_payload` becomes 413 `payload_too_large`.
 */
export async function callRpc(
  settings: RpcCallSettings,
  service: string,
  operation: string,
  request: RpcRequest,
  call: CallContext,
): Promise<RpcReply> {
  return withSpan(
    `rpc call ${service}.${operation}`,
    { kind: SpanKind.CLIENT, attributes: { 'messaging.system': 'nats', 'rpc.method': operation } },
    async () => {
      try {
        const subject = settings.subjects.rpc(service, operation);
        const msg = await settings.nc.request(subject, JSON.stringify(request), {
          timeout: settings.timeoutMs ?? 10_000,
          headers: sealCallContext(settings.callContext, subject, call),
        });
        const rawStatus = msg.headers?.get(RAW_REPLY.status);
        if (rawStatus) {
          const headers = msg.headers?.get(RAW_REPLY.headers);
          const body = new JsonText(msg.data);
          return {
            ok: true,
            status: Number(rawStatus),
            body: settings.passJsonThrough ? body : body.parse(),
            ...(headers ? { headers: JSON.parse(headers) as Record<string, string> } : {}),
          };
        }
        return msg.json<RpcReply>();
      } catch (error) {
        const name = (error as Error).name;
        const message = (error as Error).message ?? '';
        if (name === 'NoRespondersError' || /no responders/i.test(message)) {
          return failure(new AppError(503, 'service_unavailable', `the ${service} service is not available`));
        }
        if (name === 'TimeoutError' || /timeout/i.test(message)) {
          return failure(new AppError(504, 'upstream_timeout', `the ${service} service did not answer in time`));
        }
        // The request itself is larger than the bus carries (the client refuses to send it).
        if (/max_payload/i.test(message)) {
          return failure(new AppError(413, 'payload_too_large', 'the request is larger than the service can take'));
        }
        throw error;
      }
    },
  );
}

/** A reply that succeeded; a failed one is thrown as the AppError the service (or the bus) answered. */
export function okReply(reply: RpcReply): RpcOkReply {
  if (!reply.ok) throw new AppError(reply.error.status, reply.error.code, reply.error.message, reply.error.details);
  return reply;
}

/** The body of a reply that succeeded, as `T`; a failed one is thrown as its AppError (`okReply`). */
export function replyValue<T>(reply: RpcReply): T {
  return okReply(reply).body as T;
}
