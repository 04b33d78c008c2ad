import { ConfigError, defineConfig, Env, envVariables, readConfig } from '@catalog/platform';

/** A schema with one variable of each kind, a group and a rule `build` states. */
const probe = defineConfig(
  Env.group({
    port: Env.integer({ env: 'PROBE_PORT', default: 8080, minimum: 0, maximum: 65535, description: 'port' }),
    verbose: Env.boolean({ env: 'PROBE_VERBOSE', default: false, description: 'verbose' }),
    level: Env.oneOf(['low', 'high'], { env: 'PROBE_LEVEL', default: 'low', description: 'level' }),
    name: Env.string({ env: 'PROBE_NAME', description: 'name (required)' }),
    database: Env.url({ env: 'PROBE_DATABASE_URL', protocols: ['postgres'], secret: true, description: 'database' }),
    token: Env.secret({ env: 'PROBE_TOKEN', minLength: 16, description: 'token' }),
    note: Env.optional(Env.string({ env: 'PROBE_NOTE', description: 'note' })),
    password: Env.optional(Env.secret({ env: 'PROBE_PASSWORD', description: 'password' })),
    user: Env.optional(Env.string({ env: 'PROBE_USER', description: 'required with PROBE_PASSWORD' })),
    limits: Env.group({
      burst: Env.integer({ env: 'PROBE_BURST', default: 10, minimum: 1, description: 'burst' }),
    }),
  }),
  ({ password, user, ...values }, check) => ({
    ...values,
    credentials: password === undefined ? undefined : { user: check.required('PROBE_USER', user), password },
  }),
);

const VALID = {
  PROBE_NAME: 'probe',
  PROBE_DATABASE_URL: 'postgres://app:pw@db/catalog',
  PROBE_TOKEN: 'a-token-of-enough-length',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    readConfig(probe, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

test('strings become the types the schema declares, groups nested objects', () => {
  const config = readConfig(probe, {
    ...VALID,
    PROBE_PORT: '9090',
    PROBE_VERBOSE: 'YES',
    PROBE_LEVEL: 'high',
    PROBE_NOTE: 'hello',
    PROBE_PASSWORD: 'pw',
    PROBE_USER: 'someone',
    PROBE_BURST: '3',
  });
  // Typed: these assignments compile only if the reader's result has these types.
  const port: number = config.port;
  const verbose: boolean = config.verbose;
  const level: 'low' | 'high' = config.level;
  const note: string | undefined = config.note;
  expect({ port, verbose, level, note }).toEqual({ port: 9090, verbose: true, level: 'high', note: 'hello' });
  expect(config).toMatchObject({
    name: 'probe',
    database: VALID.PROBE_DATABASE_URL,
    token: VALID.PROBE_TOKEN,
    credentials: { user: 'someone', password: 'pw' },
    limits: { burst: 3 },
  });
  for (const [raw, value] of [
    ['1', true],
    ['on', true],
    ['True', true],
    ['0', false],
    ['no', false],
    ['OFF', false],
  ] as const) {
    expect(readConfig(probe, { ...VALID, PROBE_VERBOSE: raw }).verbose).toBe(value);
  }
});

test('unset or empty variables take their defaults; optional ones stay undefined', () => {
  const config = readConfig(probe, { ...VALID, PROBE_PORT: '', PROBE_NOTE: '' });
  expect(config).toEqual({
    port: 8080,
    verbose: false,
    level: 'low',
    name: 'probe',
    database: VALID.PROBE_DATABASE_URL,
    token: VALID.PROBE_TOKEN,
    note: undefined,
    limits: { burst: 10 },
    credentials: undefined,
  });
});

test('bounds, integers, booleans, URLs and lists are checked, naming the variable and the bad value', () => {
  expect(problemsOf({ ...VALID, PROBE_PORT: '65536' })).toEqual(['PROBE_PORT must be between 0 and 65535, got 65536']);
  expect(problemsOf({ ...VALID, PROBE_BURST: '0' })).toEqual(['PROBE_BURST must be between 1 and inf, got 0']);
  expect(problemsOf({ ...VALID, PROBE_PORT: '80.5' })).toEqual(['PROBE_PORT must be an integer, got "80.5"']);
  expect(problemsOf({ ...VALID, PROBE_PORT: '12abc' })).toEqual(['PROBE_PORT must be an integer, got "12abc"']);
  expect(problemsOf({ ...VALID, PROBE_VERBOSE: 'maybe' })).toEqual(['PROBE_VERBOSE must be a boolean (true/false), got "maybe"']);
  expect(problemsOf({ ...VALID, PROBE_LEVEL: 'medium' })).toEqual(['PROBE_LEVEL must be one of low, high, got "medium"']);
  expect(problemsOf({ ...VALID, PROBE_DATABASE_URL: 'not a url' })).toEqual(['PROBE_DATABASE_URL must be a URL']);
});

test('every problem is listed in one error, rules of `build` included', () => {
  const error = (() => {
    try {
      readConfig(probe, { PROBE_PORT: 'x', PROBE_LEVEL: 'none', PROBE_PASSWORD: 'pw', PROBE_BURST: '-1' });
    } catch (caught) {
      return caught as ConfigError;
    }
    throw new Error('the configuration was accepted');
  })();
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.problems).toEqual([
    'PROBE_PORT must be an integer, got "x"',
    'PROBE_LEVEL must be one of low, high, got "none"',
    'PROBE_NAME is required but not set',
    'PROBE_DATABASE_URL is required but not set',
    'PROBE_TOKEN is required but not set',
    'PROBE_BURST must be between 1 and inf, got -1',
    'PROBE_USER is required but not set',
  ]);
  expect(error.message).toBe(`invalid configuration:\n  - ${error.problems.join('\n  - ')}`);
});

test("a secret's value, or a URL's, is never part of the error", () => {
  const token = 'short-secret';
  const url = 'mysql://app:hunter2-password@db/catalog';
  const problems = problemsOf({ ...VALID, PROBE_TOKEN: token, PROBE_DATABASE_URL: url });
  expect(problems).toEqual(['PROBE_DATABASE_URL must use one of postgres, got "mysql:"', 'PROBE_TOKEN must be at least 16 characters']);
  expect(problems.join('\n')).not.toContain(token);
  expect(problems.join('\n')).not.toContain('hunter2');
  expect(problemsOf({ ...VALID, PROBE_DATABASE_URL: 'hunter2-password' }).join('\n')).not.toContain('hunter2');
});

test('the variables of a schema list each with its name, kind, default, bounds and whether it is a secret', () => {
  const variables = envVariables(probe.schema);
  expect(variables.map((v) => v.name)).toEqual([
    'PROBE_PORT',
    'PROBE_VERBOSE',
    'PROBE_LEVEL',
    'PROBE_NAME',
    'PROBE_DATABASE_URL',
    'PROBE_TOKEN',
    'PROBE_NOTE',
    'PROBE_PASSWORD',
    'PROBE_USER',
    'PROBE_BURST',
  ]);
  const byName = new Map(variables.map((v) => [v.name, v]));
  expect(byName.get('PROBE_PORT')).toEqual({
    name: 'PROBE_PORT',
    kind: 'integer',
    description: 'port',
    required: false,
    secret: false,
    default: 8080,
    minimum: 0,
    maximum: 65535,
  });
  expect(byName.get('PROBE_LEVEL')).toMatchObject({ kind: 'enum', values: ['low', 'high'], default: 'low' });
  expect(byName.get('PROBE_DATABASE_URL')).toMatchObject({ kind: 'url', protocols: ['postgres'], required: true, secret: true });
  expect(byName.get('PROBE_TOKEN')).toMatchObject({ kind: 'secret', minLength: 16, required: true, secret: true });
  expect(byName.get('PROBE_NOTE')).toMatchObject({ kind: 'string', required: false, secret: false });
});
