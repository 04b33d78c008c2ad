import { Type, type Static, type TSchema } from '@sinclair/typebox';

export const Uuid = Type.String({
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'UUIDv7 identifier',
});

/** Postgres text cannot hold a NUL character, so no free text may contain one. */
export const NUL_FREE_PATTERN = '^[^\\u0000]*$';

/** Free text: bounded length and no NUL character. */
export function Text(minLength: number, maxLength: number, description?: string) {
  return Type.String({ minLength, maxLength, pattern: NUL_FREE_PATTERN, ...(description ? { description } : {}) });
}
export const Timestamp = Type.String({ format: 'date-time' });

/**
 * Keyword of a schema holding JSON Schema keywords that the OpenAPI document shows but the
 * gateway's validation leaves to the owning service, which refuses other values with its own,
 * more precise answer: the accepted content types (`enum`; others 415, compared case-insensitively,
 * decision 0023), the cursor alphabet (`pattern`; others 400 invalid_cursor, decision 0032).
 */
export const DOCUMENTED_ONLY = 'x-documented-only';

/**
 * Page cursors (`after`): opaque base64url tokens, as returned in `nextCursor` (decision 0032).
 * Anything else, or one of this shape that does not verify, is 400 `invalid_cursor`.
 */
export function Cursor(maxLength: number, description: string) {
  return Type.String({ minLength: 1, maxLength, description, [DOCUMENTED_ONLY]: { pattern: '^[A-Za-z0-9_-]+$' } });
}

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'stable snake_case code' }),
      message: Type.String(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      requestId: Type.String(),
    }),
  },
);
export type ErrorBody = Static<typeof ErrorBody>;

/** A page of a keyset-paginated list: `{<items>, nextCursor, hasMore}`. */
export function Page<T extends TSchema>(itemsName: string, item: T) {
  return Type.Object({
    [itemsName]: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `after` for the next page; null when there is none' }),
    hasMore: Type.Boolean(),
  });
}

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    after: Type.Optional(Cursor(512, 'opaque cursor from a previous page')),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Uuid });
