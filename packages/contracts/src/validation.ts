import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { OperationBase } from './routes.js';
import { LINE_PATTERN, TEXT_PATTERN } from './schemas/common.js';
import { numberTextCheck } from './number-text.js';
import type { RequestPart, ValidationIssue } from './validation-issue.js';

// ajv and ajv-formats are CommonJS with a default export.
const Ajv = AjvModule.default ?? (AjvModule as unknown as typeof AjvModule.default);
const addFormats = addFormatsModule.default ?? (addFormatsModule as unknown as typeof addFormatsModule.default);

export type { RequestPart, ValidationIssue } from './validation-issue.js';

export type ValidationResult =
  | { ok: true; params: Record<string, string>; query: Record<string, unknown>; headers: Record<string, unknown>; body: unknown }
  | { ok: false; part: RequestPart; issues: ValidationIssue[] };

export interface RequestValidator {
  route: OperationBase;
  /** `headers`: the request headers the operation reads (lower-case names); others are not looked at. */
  validate(input: {
    params: Record<string, string>;
    query: Record<string, unknown>;
    headers?: Record<string, unknown>;
    body: unknown;
  }): ValidationResult;
}

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce, useDefaults: true, strict: false, removeAdditional: false });
  addFormats(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

function compile(ajv: ReturnType<typeof makeAjv>, schema: TSchema | undefined): ValidateFunction | null {
  return schema ? ajv.compile(schema) : null;
}

/** What a text pattern refuses, said plainly (Ajv's message would quote the pattern). */
const PATTERN_MESSAGES = new Map([
  [TEXT_PATTERN, 'must not contain control characters (tab and line breaks aside) or unpaired surrogates'],
  [LINE_PATTERN, 'must be one line without control characters (no tab or line break) or unpaired surrogates'],
]);

/** One issue per offending path (the first, most specific error Ajv reports for it). */
function issues(location: RequestPart, errors: ErrorObject[] | null | undefined): ValidationIssue[] {
  const byPath = new Map<string, ValidationIssue>();
  for (const e of errors ?? []) {
    let path = e.instancePath || '/';
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      path = `${e.instancePath}/${extra}`;
      message = 'is not a known field';
    } else if (e.keyword === 'required') {
      path = `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
      message = 'is required';
    } else if (e.keyword === 'pattern') {
      message = PATTERN_MESSAGES.get((e.params as { pattern: string }).pattern) ?? message;
    }
    if (!byPath.has(path)) byPath.set(path, { location, path, message });
  }
  return [...byPath.values()];
}

/** Compiles the params, query and body schemas of a route once; `validate` checks a request. */
export function requestValidator(route: OperationBase): RequestValidator {
  const params = compile(queryAjv, route.params);
  const query = compile(queryAjv, route.query);
  const headers = compile(queryAjv, route.headers);
  const body = compile(bodyAjv, route.body);
  // Numbers that arrive as text are checked as written before Ajv coerces them (decision 0116).
  const numbers = (['params', 'query', 'headers'] as const).flatMap((part) => {
    const check = numberTextCheck(part, route[part]);
    return check ? [{ part, check }] : [];
  });
  return {
    route,
    validate(input) {
      for (const { part, check } of numbers) {
        const found = check(input[part] ?? {});
        if (found.length > 0) return { ok: false, part, issues: found };
      }
      const paramsValue = { ...input.params };
      if (params && !params(paramsValue)) return { ok: false, part: 'params', issues: issues('params', params.errors) };
      const queryValue: Record<string, unknown> = { ...input.query };
      if (query) {
        if (!query(queryValue)) return { ok: false, part: 'query', issues: issues('query', query.errors) };
      } else if (Object.keys(queryValue).length > 0) {
        return {
          ok: false,
          part: 'query',
          issues: Object.keys(queryValue).map((k) => ({ location: 'query', path: `/${k}`, message: 'is not a known parameter' })),
        };
      }
      const headersValue: Record<string, unknown> = { ...(headers ? input.headers : {}) };
      if (headers && !headers(headersValue)) return { ok: false, part: 'headers', issues: issues('headers', headers.errors) };
      // An optional body left out arrives as undefined (HTTP) or null (a bus request without one).
      const bodyValue = (input.body === undefined || input.body === null) && route.bodyOptional ? {} : input.body;
      if (body) {
        if (bodyValue === undefined)
          return { ok: false, part: 'body', issues: [{ location: 'body', path: '/', message: 'a JSON body is required' }] };
        if (!body(bodyValue)) return { ok: false, part: 'body', issues: issues('body', body.errors) };
      } else if (bodyValue !== undefined) {
        return { ok: false, part: 'body', issues: [{ location: 'body', path: '/', message: 'this operation takes no body' }] };
      }
      return { ok: true, params: paramsValue, query: queryValue, headers: headersValue, body: bodyValue };
    },
  };
}

/** Validates a value against a schema (used by services for messages and stored shapes). */
export function schemaValidator(schema: TSchema): (value: unknown) => ValidationIssue[] {
  const validate = bodyAjv.compile(schema);
  return (value) => (validate(value) ? [] : issues('body', validate.errors));
}
