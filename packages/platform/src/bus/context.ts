import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { extractTraceContext, injectTraceHeaders } from '../telemetry.js';
import type { Context } from '@opentelemetry/api';

/**
 * What a synchronous call carries besides its payload: who calls (tenant, key, source system),
 * which request it belongs to, and the W3C trace context.
 */
export interface CallContext {
  tenantId: string;
  keyId: string | null;
  sourceSystem: string;
  requestId: string;
}

const HEADER = {
  tenant: 'Catalog-Tenant',
  keyId: 'Catalog-Key-Id',
  sourceSystem: 'Catalog-Source-System',
  requestId: 'Catalog-Request-Id',
} as const;

export function contextToHeaders(call: CallContext): MsgHdrs {
  const h = natsHeaders();
  h.set(HEADER.tenant, call.tenantId);
  if (call.keyId) h.set(HEADER.keyId, call.keyId);
  h.set(HEADER.sourceSystem, call.sourceSystem);
  h.set(HEADER.requestId, call.requestId);
  for (const [key, value] of Object.entries(injectTraceHeaders({}))) h.set(key, value);
  return h;
}

export function contextFromHeaders(h: MsgHdrs | undefined): { call: CallContext; trace: Context } | null {
  const tenantId = h?.get(HEADER.tenant);
  const requestId = h?.get(HEADER.requestId);
  if (!h || !tenantId || !requestId) return null;
  return {
    call: {
      tenantId,
      keyId: h.get(HEADER.keyId) || null,
      sourceSystem: h.get(HEADER.sourceSystem) || 'unknown',
      requestId,
    },
    trace: extractTraceContext((key) => h.get(key) || undefined),
  };
}
