import type { TSchema } from '@sinclair/typebox';
import type { RequestPart, ValidationIssue } from './validation-issue.js';

/**
 * How a number is written where it arrives as text (query, path, header; decision 0116). Ajv's
 * coercion takes whatever JavaScript's `Number()` reads (`0x10`, ` 5`, `1e1`, `5.0`), so the text
 * is checked first: an integer is decimal digits, with a leading minus only where the schema
 * allows negatives; any other number is a JSON number (no hex, no white space, no `Infinity`).
 */
const DIGITS = /^[0-9]+$/;
const SIGNED_DIGITS = /^-?[0-9]+$/;
const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

interface NumberText {
  pattern: RegExp;
  message: string;
}

interface PropertySchema {
  type?: string | string[];
  anyOf?: PropertySchema[];
  minimum?: number;
}

/** The types a property schema (or the members of its union) accepts, and whether its numbers may be negative. */
function typesOf(schema: PropertySchema): { types: Set<string>; negatives: boolean } {
  const members = schema.anyOf ?? [schema];
  const typed = (m: PropertySchema): string[] => (m.type === undefined ? [] : [m.type].flat());
  const types = new Set(members.flatMap(typed));
  const numeric = members.filter((m) => typed(m).some((t) => t === 'integer' || t === 'number'));
  const negatives = numeric.some((m) => m.minimum === undefined || m.minimum < 0);
  return { types, negatives };
}

function numberText(schema: PropertySchema): NumberText | null {
  const { types, negatives } = typesOf(schema);
  if (types.has('integer') && !types.has('number')) {
    return negatives
      ? { pattern: SIGNED_DIGITS, message: 'must be an integer written in decimal digits (a leading minus allowed)' }
      : { pattern: DIGITS, message: 'must be an integer written in decimal digits only' };
  }
  if (types.has('number')) return { pattern: JSON_NUMBER, message: 'must be a number written as in JSON (decimal, no white space)' };
  return null;
}

/**
 * A check of the numbers of an object schema whose values arrive as text: for each property
 * typed integer or number, a value given as a string must be written as such; null for a schema
 * with none.
 */
export function numberTextCheck(
  location: RequestPart,
  schema: TSchema | undefined,
): ((values: Record<string, unknown>) => ValidationIssue[]) | null {
  const properties = (schema as { properties?: Record<string, PropertySchema> } | undefined)?.properties ?? {};
  const checked = Object.entries(properties).flatMap(([name, property]) => {
    const text = numberText(property);
    return text ? [[name, text] as const] : [];
  });
  if (checked.length === 0) return null;
  return (values) =>
    checked.flatMap(([name, { pattern, message }]) => {
      const value = values[name];
      return typeof value === 'string' && !pattern.test(value) ? [{ location, path: `/${name}`, message }] : [];
    });
}
