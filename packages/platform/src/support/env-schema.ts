import {
  Kind,
  KindGuard,
  Type,
  type TBoolean,
  type TInteger,
  type TObject,
  type Static,
  type TProperties,
  type TSchema,
  type TString,
  type TUnsafe,
} from '@sinclair/typebox';

/**
 * A service's configuration is declared as a TypeBox object schema whose leaves are environment
 * variables (built with `Env`) and whose nested objects group them (`Env.group`): the schema names
 * each variable once with its type, default, bounds and description, `readConfig` checks the
 * environment against it, and `Static<>` of it is the typed result. Extension keywords (`x-…`, as
 * the contracts' `x-documented-only`) carry what JSON Schema has no word for.
 */
const ENV = 'x-env';
const SECRET = 'x-secret';
const PROTOCOLS = 'x-protocols';
const DEFAULT_TEXT = 'x-default-text';

/** What every variable declares. */
interface VariableOptions<T> {
  /** The environment variable, e.g. `DB_POOL_SIZE`. */
  env: string;
  /** What it sets (docs/configuration.md shows it). */
  description: string;
  /** Value when unset (or empty); a variable with neither a default nor `Env.optional` is required. */
  default?: T;
  /** The default in words, where the code computes it from other settings (e.g. "DATABASE_URL"). */
  defaultText?: string;
}

interface IntegerOptions extends VariableOptions<number> {
  minimum?: number;
  maximum?: number;
}

interface UrlOptions extends VariableOptions<string> {
  /** Accepted schemes without the colon, e.g. `['postgres', 'postgresql']`. */
  protocols: readonly string[];
  /** The URL may hold a password: never echoed, listed as a secret. */
  secret?: boolean;
}

interface SecretOptions extends VariableOptions<string> {
  /** Shortest accepted value. */
  minLength?: number;
}

function annotations<T>({ env, description, default: fallback, defaultText }: VariableOptions<T>) {
  return {
    [ENV]: env,
    description,
    ...(fallback === undefined ? {} : { default: fallback }),
    ...(defaultText === undefined ? {} : { [DEFAULT_TEXT]: defaultText }),
  };
}

export const Env = {
  string: (options: VariableOptions<string>): TString => Type.String(annotations(options)),
  integer: ({ minimum, maximum, ...options }: IntegerOptions): TInteger =>
    Type.Integer({ ...annotations(options), ...(minimum === undefined ? {} : { minimum }), ...(maximum === undefined ? {} : { maximum }) }),
  /** `true`/`false`; also `1`/`0`, `yes`/`no`, `on`/`off`, in any case. */
  boolean: (options: VariableOptions<boolean>): TBoolean => Type.Boolean(annotations(options)),
  url: ({ protocols, secret, ...options }: UrlOptions): TString =>
    Type.String({ ...annotations(options), format: 'uri', [PROTOCOLS]: [...protocols], ...(secret ? { [SECRET]: true } : {}) }),
  /** One of `values`. */
  oneOf: <const V extends readonly [string, ...string[]]>(values: V, options: VariableOptions<V[number]>): TUnsafe<V[number]> =>
    Type.Unsafe<V[number]>({ ...annotations(options), type: 'string', enum: [...values] }),
  /** A key, token or password: never echoed in an error, listed as a secret. */
  secret: ({ minLength, ...options }: SecretOptions): TString =>
    Type.String({ ...annotations(options), [SECRET]: true, ...(minLength === undefined ? {} : { minLength }) }),
  /** A variable that may stay unset (its value is then `undefined`). */
  optional: <T extends TSchema>(variable: T) => Type.Optional(variable),
  /** Variables read into one nested object of the configuration. */
  group: <P extends TProperties>(variables: P): TObject<P> => Type.Object(variables),
};

/** The values read for a schema of variables (a group's, say). */
export type EnvValues<S extends TSchema> = Static<S>;

/** One variable as the reader, the documentation and the tests see it. */
export interface EnvVariable {
  name: string;
  kind: 'string' | 'integer' | 'boolean' | 'url' | 'enum' | 'secret';
  description: string;
  required: boolean;
  default?: string | number | boolean;
  defaultText?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  protocols?: readonly string[];
  values?: readonly string[];
  /** Its value is never shown (secrets, URLs that may hold a password). */
  secret: boolean;
}

const stringArray = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
const numberOrUndefined = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function kindOf(schema: TSchema): EnvVariable['kind'] {
  if (KindGuard.IsInteger(schema)) return 'integer';
  if (KindGuard.IsBoolean(schema)) return 'boolean';
  if (KindGuard.IsUnsafe(schema) && stringArray(schema.enum)) return 'enum';
  if (KindGuard.IsString(schema)) {
    if (stringArray(schema[PROTOCOLS])) return 'url';
    return schema[SECRET] === true ? 'secret' : 'string';
  }
  throw new Error(`unsupported configuration schema of kind ${schema[Kind]}`);
}

/** The variable a leaf of a configuration schema declares. */
export function envVariableOf(schema: TSchema): EnvVariable {
  const name: unknown = schema[ENV];
  if (typeof name !== 'string') throw new Error('a configuration variable needs its name (build it with Env)');
  const fallback: unknown = schema.default;
  const defaultText: unknown = schema[DEFAULT_TEXT];
  const description: unknown = schema.description;
  const variable: EnvVariable = {
    name,
    kind: kindOf(schema),
    description: typeof description === 'string' ? description : '',
    required: fallback === undefined && !KindGuard.IsOptional(schema),
    secret: schema[SECRET] === true,
  };
  if (typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean') variable.default = fallback;
  if (typeof defaultText === 'string') variable.defaultText = defaultText;
  const minimum = numberOrUndefined(schema.minimum);
  const maximum = numberOrUndefined(schema.maximum);
  const minLength = numberOrUndefined(schema.minLength);
  if (minimum !== undefined) variable.minimum = minimum;
  if (maximum !== undefined) variable.maximum = maximum;
  if (minLength !== undefined) variable.minLength = minLength;
  const protocols = stringArray(schema[PROTOCOLS]);
  const values = stringArray(schema.enum);
  if (protocols) variable.protocols = protocols;
  if (values) variable.values = values;
  return variable;
}

/** Every variable of a configuration schema, groups included, in declaration order. */
export function envVariables(schema: TObject): EnvVariable[] {
  return Object.values(schema.properties).flatMap((property) =>
    KindGuard.IsObject(property) ? envVariables(property) : [envVariableOf(property)],
  );
}
