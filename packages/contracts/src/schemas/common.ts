import { Type, type Static, type TArray, type TBoolean, type TNull, type TSchema, type TString, type TUnion } from '@sinclair/typebox';

export const Uuid = Type.String({
  format: 'uuid',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
  description: 'UUIDv7 identifier',
});

/**
 * Keyword of a schema holding JSON Schema keywords that the OpenAPI document shows but the
 * gateway's validation leaves to the owning service, which refuses other values with its own,
 * more precise answer: the accepted content types (`enum`; others 415, compared case-insensitively,
 * decision 0023), the cursor alphabet (`pattern`; others 400 invalid_cursor, decision 0032).
 */
export const DOCUMENTED_ONLY = 'x-documented-only';

/**
 * Characters no text field takes (decision 0052): the C0 control characters but tab, line feed
 * and carriage return (NUL among them: Postgres text cannot hold it), DEL, the C1 controls, and
 * UTF-16 surrogates that are not half of a pair (no client means them, and Postgres refuses them
 * in JSON). Ajv compiles patterns with the `u` flag, so a pair is one code point and passes.
 */
export const TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]*$';

/** The same for one line of text (a title, a name, a label): no tab, line feed or carriage return either. */
export const LINE_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F\\uD800-\\uDFFF]*$';

/**
 * The patterns as the OpenAPI document shows them: without the surrogate range, which many regex
 * engines cannot express (Rust's, Python's JSON Schema tools), said in the description instead.
 */
const DOCUMENTED_TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F]*$';
const DOCUMENTED_LINE_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';
const NO_LONE_SURROGATES = 'unpaired UTF-16 surrogates are refused';

function textSchema(minLength: number, maxLength: number, pattern: string, documented: string, description?: string) {
  return Type.String({
    minLength,
    maxLength,
    pattern,
    description: description ? `${description}; ${NO_LONE_SURROGATES}` : NO_LONE_SURROGATES,
    [DOCUMENTED_ONLY]: { pattern: documented },
  });
}

/** Free text that may span lines: bounded length, no control characters but tab and line breaks. */
export function Text(minLength: number, maxLength: number, description?: string) {
  return textSchema(minLength, maxLength, TEXT_PATTERN, DOCUMENTED_TEXT_PATTERN, description);
}

/** One line of text (titles, names, labels): bounded length, no control characters at all. */
export function Line(minLength: number, maxLength: number, description?: string) {
  return textSchema(minLength, maxLength, LINE_PATTERN, DOCUMENTED_LINE_PATTERN, description);
}
export const Timestamp = Type.String({ format: 'date-time' });

/**
 * Page cursors (`after`): opaque base64url tokens, as returned in `nextCursor` (decision 0032).
 * Anything else, or one of this shape that does not verify, is 400 `invalid_cursor`.
 */
export function Cursor(maxLength: number, description: string) {
  return Type.String({ minLength: 1, maxLength, description, [DOCUMENTED_ONLY]: { pattern: '^[A-Za-z0-9_-]+$' } });
}

/** The `after` query parameter of a keyset-paginated list: the `nextCursor` of its previous page. */
export const PageAfter = Type.Optional(Cursor(512, 'nextCursor of a previous page'));

export const ErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String({ description: 'stable snake_case code' }),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    requestId: Type.String(),
  }),
});
export type ErrorBody = Static<typeof ErrorBody>;

type PageProperties<K extends string, T extends TSchema> = { [P in K]: TArray<T> } & {
  nextCursor: TUnion<[TString, TNull]>;
  hasMore: TBoolean;
};

/** A page of a keyset-paginated list: `{<items>, nextCursor, hasMore}`. */
export function Page<K extends string, T extends TSchema>(itemsName: K, item: T) {
  const properties = {
    [itemsName]: Type.Array(item),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `after` for the next page; null when there is none' }),
    hasMore: Type.Boolean(),
  } as PageProperties<K, T>;
  return Type.Object(properties);
}

export const IdParams = Type.Object({ id: Uuid });
