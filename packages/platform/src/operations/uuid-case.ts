import { isUuid } from '../support/ids.js';

/** Lower-cases, in place, the ids of a value that passed its schema; returns the value (a leaf's replacement). */
type LowerCaser = (value: unknown) => unknown;

/**
 * The lower-caser of the ids a request part's schema declares (`format: 'uuid'`, at any depth:
 * object properties, additional and pattern properties, array items, every branch of a union),
 * compiled once from the schema, or null when the schema declares none. Postgres compares uuid
 * columns whatever the case, but the services compare, key and echo ids as text too, so an id a
 * client writes in upper case is made the one form Postgres answers with, once, at the operation
 * boundary. Only strings that are UUIDs are changed, so a union branch of free text is left alone.
 */
export function uuidLowerCaser(schema: unknown): LowerCaser | null {
  if (!isRecord(schema)) return null;
  if (schema.format === 'uuid') return (value) => (isUuid(value) ? value.toLowerCase() : value);
  const parts: LowerCaser[] = [];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const named = Object.entries(properties).flatMap(([key, sub]) => {
    const lower = uuidLowerCaser(sub);
    return lower ? [[key, lower] as const] : [];
  });
  if (named.length > 0) {
    parts.push((value) => {
      if (isRecord(value)) for (const [key, lower] of named) if (key in value) value[key] = lower(value[key]);
      return value;
    });
  }
  const patterned = Object.entries(isRecord(schema.patternProperties) ? schema.patternProperties : {}).flatMap(([pattern, sub]) => {
    const lower = uuidLowerCaser(sub);
    return lower ? [[new RegExp(pattern, 'u'), lower] as const] : [];
  });
  const additional = uuidLowerCaser(schema.additionalProperties);
  if (patterned.length > 0 || additional) {
    parts.push((value) => {
      if (!isRecord(value)) return value;
      for (const key of Object.keys(value)) {
        const matching = patterned.filter(([pattern]) => pattern.test(key));
        for (const [, lower] of matching) value[key] = lower(value[key]);
        if (additional && matching.length === 0 && !(key in properties)) value[key] = additional(value[key]);
      }
      return value;
    });
  }
  const items = uuidLowerCaser(schema.items);
  if (items) {
    parts.push((value) => {
      if (Array.isArray(value)) value.forEach((item, index) => (value[index] = items(item)));
      return value;
    });
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) parts.push(...branches.flatMap((branch) => uuidLowerCaser(branch) ?? []));
  }
  if (parts.length === 0) return null;
  return (value) => parts.reduce((current, lower) => lower(current), value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
