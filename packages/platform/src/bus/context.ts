import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { Context } from '@opentelemetry/api';
import { AppError } from '../support/errors.js';
import type { Logger } from '../observability/logger.js';
import { extractTraceContext, injectTraceHeaders } from '../observability/tracing.js';

/**
 * What a synchronous call carries besides its payload: who calls (tenant, key, its permissions,
 * source system), which request it belongs to, and the W3C trace context.
 */
/**
 * The tenant of a call that acts for no tenant (the admin area, locating a listener): operations
 * that are not tenant-scoped accept it; every other one refuses it as no valid tenant.
 */
export const NO_TENANT = 'none';

export interface CallContext {
  tenantId: string;
  keyId: string | null;
  /** The API key's permissions; none when a service acts on its own (a sweeper). */
  permissions?: readonly string[];
  sourceSystem: string;
  requestId: string;
}

/**
 * The key every service signs and checks call contexts with (decision 0056): an HMAC-SHA256 over
 * the context, its expiry and the subject it is sent to. `ttlMs` is how long a signed context
 * stays valid after it is sent (transit and clock skew between hosts, not the call's duration).
 * The key is a KeyObject made once: given a Buffer, `createHmac` builds a new native key object on
 * every call (about 8 µs of CPU, and one more finalised object for the GC, twice per call).
 */
export interface CallContextKeys {
  readonly key: KeyObject;
  readonly ttlMs: number;
}

export const CALL_CONTEXT_SECRET_MIN_LENGTH = 32;
export const CALL_CONTEXT_TTL_MS = 30_000;

export function callContextKeys(secret: string, ttlMs: number = CALL_CONTEXT_TTL_MS): CallContextKeys {
  if (secret.length < CALL_CONTEXT_SECRET_MIN_LENGTH)
    throw new Error(`the call context secret must be at least ${CALL_CONTEXT_SECRET_MIN_LENGTH} characters`);
  return { key: createSecretKey(Buffer.from(secret, 'utf8')), ttlMs };
}

const HEADER = {
  tenant: 'Catalog-Tenant',
  keyId: 'Catalog-Key-Id',
  permissions: 'Catalog-Permissions',
  sourceSystem: 'Catalog-Source-System',
  requestId: 'Catalog-Request-Id',
  subject: 'Catalog-Context-Subject',
  expires: 'Catalog-Context-Expires',
  signature: 'Catalog-Context-Signature',
} as const;

const SIGNATURE_VERSION = 'v1';

interface SignedFields {
  subject: string;
  call: CallContext;
  expiresAt: number;
}

function signature(keys: CallContextKeys, { subject, call, expiresAt }: SignedFields): Buffer {
  // A JSON array: no value can be shifted into its neighbour.
  const text = JSON.stringify([
    SIGNATURE_VERSION,
    subject,
    call.tenantId,
    call.keyId ?? '',
    (call.permissions ?? []).join(','),
    call.sourceSystem,
    call.requestId,
    expiresAt,
  ]);
  return createHmac('sha256', keys.key).update(text).digest();
}

/** The headers of a call to `subject`: the context, signed for that subject until `now + ttlMs`. */
export function sealCallContext(keys: CallContextKeys, subject: string, call: CallContext): MsgHdrs {
  const expiresAt = Date.now() + keys.ttlMs;
  const h = natsHeaders();
  h.set(HEADER.tenant, call.tenantId);
  if (call.keyId) h.set(HEADER.keyId, call.keyId);
  if (call.permissions && call.permissions.length > 0) h.set(HEADER.permissions, call.permissions.join(','));
  h.set(HEADER.sourceSystem, call.sourceSystem);
  h.set(HEADER.requestId, call.requestId);
  h.set(HEADER.subject, subject);
  h.set(HEADER.expires, String(expiresAt));
  h.set(HEADER.signature, `${SIGNATURE_VERSION}=${signature(keys, { subject, call, expiresAt }).toString('base64url')}`);
  for (const [key, value] of Object.entries(injectTraceHeaders({}))) h.set(key, value);
  return h;
}

export interface OpenedCallContext {
  call: CallContext;
  trace: Context;
}

export type CallContextRefusal = 'missing' | 'malformed' | 'forged' | 'wrong_subject' | 'expired';

const REFUSAL_MESSAGES: Record<CallContextRefusal, string> = {
  missing: 'the call carries no signed call context',
  malformed: 'the call context is malformed',
  forged: 'the call context signature does not match',
  wrong_subject: 'the call context was signed for another subject',
  expired: 'the call context has expired',
};

function readContext(keys: CallContextKeys, subject: string, h: MsgHdrs | undefined): OpenedCallContext | CallContextRefusal {
  const value = (name: string): string => h?.get(name) ?? '';
  const tenantId = value(HEADER.tenant);
  const requestId = value(HEADER.requestId);
  if (!h || !tenantId || !requestId || !value(HEADER.subject) || !value(HEADER.expires) || !value(HEADER.signature)) return 'missing';
  const signed = /^v1=([A-Za-z0-9_-]{43})$/.exec(value(HEADER.signature));
  if (!signed || !/^\d{1,15}$/.test(value(HEADER.expires))) return 'malformed';
  const expiresAt = Number(value(HEADER.expires));
  const permissions = value(HEADER.permissions);
  const call: CallContext = {
    tenantId,
    keyId: value(HEADER.keyId) || null,
    permissions: permissions ? permissions.split(',') : [],
    sourceSystem: value(HEADER.sourceSystem),
    requestId,
  };
  const expected = signature(keys, { subject: value(HEADER.subject), call, expiresAt });
  if (!timingSafeEqual(expected, Buffer.from(signed[1]!, 'base64url'))) return 'forged';
  if (value(HEADER.subject) !== subject) return 'wrong_subject';
  if (expiresAt < Date.now()) return 'expired';
  return { call, trace: extractTraceContext((key) => h.get(key) || undefined) };
}

/**
 * The context of a call received on `subject`, once its signature, subject and expiry check out;
 * otherwise the error to answer with (401 `call_context_rejected`, the reason in its details),
 * logged with what the call claimed to be.
 */
export function openCallContext(
  keys: CallContextKeys,
  subject: string,
  h: MsgHdrs | undefined,
  logger: Logger,
): OpenedCallContext | AppError {
  const opened = readContext(keys, subject, h);
  if (typeof opened !== 'string') return opened;
  logger.warn(
    { reason: opened, subject, claimedTenant: h?.get(HEADER.tenant) || undefined, claimedRequestId: h?.get(HEADER.requestId) || undefined },
    'call refused: its call context does not verify',
  );
  return new AppError(401, 'call_context_rejected', REFUSAL_MESSAGES[opened], { reason: opened });
}
