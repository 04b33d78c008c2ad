import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';

/**
 * The size of what goes over NATS. A message (payload plus headers) larger than the server's
 * `max_payload` is refused by the client before it is sent, so every reply that grows with data
 * is measured against it (decision 0052).
 */

/** nats-server's default `max_payload`, used until the connection has the server's INFO. */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * What a reply needs besides the body a handler fills: the `RpcReply` envelope or the raw reply's
 * headers, a cursor and `hasMore`. Kept generous: replies are paged against the budget left.
 */
export const REPLY_ENVELOPE_RESERVE = 8 * 1024;

const encoder = new TextEncoder();

/** The largest message (payload plus headers) the connected server accepts. */
export function maxPayload(nc: NatsConnection): number {
  return nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
}

/** The bytes a handler may fill with its reply's body; a page ends early rather than exceed it. */
export function replyBodyBudget(nc: NatsConnection): number {
  return Math.max(maxPayload(nc) - REPLY_ENVELOPE_RESERVE, 1024);
}

/** Bytes of headers as the client writes them (`NATS/1.0\r\n`, `key: value\r\n` each, `\r\n`). */
export function headerBytes(headers: MsgHdrs | undefined): number {
  if (!headers) return 0;
  let bytes = 'NATS/1.0\r\n\r\n'.length;
  for (const [key, values] of headers) {
    for (const value of values) bytes += encoder.encode(key).length + 2 + encoder.encode(value).length + 2;
  }
  return bytes;
}

/** Bytes of `value` as JSON text. */
export function jsonBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(value) ?? 'null').length;
}

/**
 * How many leading `items` fit in `budget` bytes as members of a JSON array (a comma each):
 * at least one, so a page always moves on; a single item larger than the budget is the caller's
 * to refuse or the reply path's to answer with `reply_too_large`.
 */
export function countWithinBytes<T>(items: readonly T[], budget: number, size: (item: T) => number = jsonBytes): number {
  let used = 0;
  for (let i = 0; i < items.length; i += 1) {
    used += size(items[i]!) + 1;
    if (used > budget && i > 0) return i;
  }
  return items.length;
}

/**
 * The items of a page: of `fetched` (read with one more than `limit`, to know whether more
 * follow), at most `limit` and no more than fit `maxBytes` as JSON; `hasMore` when any was left
 * out. The page's cursor is its last item.
 */
export function fitPage<T>(fetched: readonly T[], limit: number, maxBytes: number): { items: T[]; hasMore: boolean } {
  const candidates = fetched.slice(0, limit);
  const items = candidates.slice(0, countWithinBytes(candidates, maxBytes));
  return { items, hasMore: fetched.length > items.length };
}
