import { KindGuard, type Static, type TObject } from '@sinclair/typebox';
import { envVariableOf, type EnvVariable } from '../support/env-schema.js';

/**
 * Configuration from the environment, validated once at start-up. Every problem is collected and
 * reported together, naming the variable, so a bad deployment fails with one clear message.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export type Environment = Record<string, string | undefined>;

/** The rules a schema cannot state (one variable required when another is set, say), for `build`. */
export interface ConfigCheck {
  /** `value`; when it is undefined, `variable` is reported as required but not set (and '' returned). */
  required(variable: string, value: string | undefined): string;
  /** Reports values that are each valid but do not work together (`problem` names the variables). */
  refuse(problem: string): void;
}

/** A service's configuration: the schema of its variables and how their values make the configuration. */
export interface ConfigDefinition<S extends TObject, T> {
  readonly schema: S;
  build(values: Static<S>, check: ConfigCheck): T;
}

/** The configuration a definition makes. */
export type ConfigOf<D> = D extends ConfigDefinition<TObject, infer T> ? T : never;

export function defineConfig<S extends TObject, T>(schema: S, build: (values: Static<S>, check: ConfigCheck) => T): ConfigDefinition<S, T> {
  return { schema, build };
}

/**
 * Reads the configuration of `definition` from `env`: each variable of its schema is converted
 * (integers, booleans, URLs, one of a list) and checked against its bounds, unset ones take their
 * default, then `build` makes the configuration. Throws one ConfigError listing every problem;
 * a secret's value is never part of it.
 */
export function readConfig<S extends TObject, T>(definition: ConfigDefinition<S, T>, env: Environment = process.env): T {
  const problems: string[] = [];
  // The walk gives every property of the schema a value of its type (or undefined where optional).
  const values = readGroup(definition.schema, env, problems) as Static<S>;
  const config = definition.build(values, {
    required(variable, value) {
      if (value === undefined) problems.push(notSet(variable));
      return value ?? '';
    },
    refuse(problem) {
      problems.push(problem);
    },
  });
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return config;
}

function readGroup(schema: TObject, env: Environment, problems: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    values[key] = KindGuard.IsObject(property) ? readGroup(property, env, problems) : readVariable(envVariableOf(property), env, problems);
  }
  return values;
}

const notSet = (name: string): string => `${name} is required but not set`;

function readVariable(variable: EnvVariable, env: Environment, problems: string[]): unknown {
  const raw = env[variable.name];
  if (raw === undefined || raw === '') {
    if (variable.default !== undefined) return variable.default;
    if (!variable.required) return undefined;
    problems.push(notSet(variable.name));
    return placeholder(variable);
  }
  const parsed = parse(variable, raw);
  if ('problem' in parsed) {
    problems.push(`${variable.name} ${parsed.problem}`);
    return variable.default ?? placeholder(variable);
  }
  return parsed.value;
}

/** A value of the right type for a variable that has none, so `build` runs and more problems are found. */
function placeholder(variable: EnvVariable): unknown {
  if (variable.kind === 'integer') return 0;
  if (variable.kind === 'boolean') return false;
  return variable.values?.[0] ?? '';
}

type Parsed = { value: unknown } | { problem: string };

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

function parse(variable: EnvVariable, raw: string): Parsed {
  switch (variable.kind) {
    case 'integer':
      return parseInteger(variable, raw);
    case 'boolean':
      if (TRUE.includes(raw.toLowerCase())) return { value: true };
      if (FALSE.includes(raw.toLowerCase())) return { value: false };
      return { problem: `must be a boolean (true/false), got "${raw}"` };
    case 'url':
      return parseUrl(variable.protocols ?? [], raw);
    case 'enum':
      return variable.values?.includes(raw) ? { value: raw } : { problem: `must be one of ${variable.values?.join(', ')}, got "${raw}"` };
    case 'secret':
      return raw.length < (variable.minLength ?? 0) ? { problem: `must be at least ${variable.minLength} characters` } : { value: raw };
    case 'string':
      return { value: raw };
  }
}

function parseInteger({ minimum, maximum }: EnvVariable, raw: string): Parsed {
  if (!/^-?\d+$/.test(raw)) return { problem: `must be an integer, got "${raw}"` };
  const value = Number(raw);
  if ((minimum !== undefined && value < minimum) || (maximum !== undefined && value > maximum)) {
    return { problem: `must be between ${minimum ?? '-inf'} and ${maximum ?? 'inf'}, got ${value}` };
  }
  return { value };
}

/** Neither problem quotes the value: a URL may hold a password. */
function parseUrl(protocols: readonly string[], raw: string): Parsed {
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    return { problem: 'must be a URL' };
  }
  if (protocols.length > 0 && !protocols.includes(protocol.replace(/:$/, ''))) {
    return { problem: `must use one of ${protocols.join(', ')}, got "${protocol}"` };
  }
  return { value: raw };
}
