import { Type } from '@sinclair/typebox';

/** The request header that names a create request, and the answer's header on a replay (decision 0119). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * `Idempotency-Key` of a POST that creates something (decision 0119): a retry with the same key,
 * within 24 hours, answers the first request's answer (status and body) and creates nothing.
 */
export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  // Visible ASCII (0x21-0x7E): no spaces, which proxies may trim or fold.
  pattern: '^[\\x21-\\x7E]+$',
  description:
    'names this request: a retry with the same key (within 24 h) creates nothing and answers the first answer, with ' +
    '`Idempotent-Replayed: true`; the key with another request is 409 idempotency_key_reused; 1-255 visible ASCII characters',
});

export const IdempotencyKeyHeaders = Type.Object({ [IDEMPOTENCY_KEY_HEADER]: Type.Optional(IdempotencyKey) });
