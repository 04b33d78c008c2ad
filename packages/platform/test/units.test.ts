import { ConfigError, cursorCodec, envelopeFromRow, envelopeOf, newId, readConfig, commonConfig, AppError } from '@catalog/platform';
import { capturingLogger } from '@catalog/testing';

const SECRET = 'units-test-call-context-secret-0123456789';

describe('config', () => {
  test('names every bad variable in one error', () => {
    const read = () => readConfig(commonConfig('catalog', 8081), { DATABASE_URL: 'mysql://x', DB_POOL_SIZE: 'lots', LOG_LEVEL: 'loud' });
    expect(read).toThrow(ConfigError);
    try {
      read();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('DATABASE_URL');
      expect(message).toContain('DB_POOL_SIZE');
      expect(message).toContain('LOG_LEVEL');
    }
  });

  test('missing required variables are named', () => {
    expect(() => readConfig(commonConfig('catalog', 8081), {})).toThrow(/DATABASE_URL is required/);
  });

  test('defaults apply', () => {
    const config = readConfig(commonConfig('catalog', 8081), {
      DATABASE_URL: 'postgres://u@h/db',
      CALL_CONTEXT_SECRET: SECRET,
    });
    expect(config).toMatchObject({
      httpPort: 8081,
      natsPrefix: 'cs',
      logLevel: 'info',
      migrationDatabaseUrl: 'postgres://u@h/db',
      dbStatementTimeoutMs: 30_000,
      dbIdleInTransactionTimeoutMs: 60_000,
      dbAllowPrivilegedRole: false,
      natsUser: undefined,
      callContextTtlMs: 30_000,
    });
  });

  test("a service's own variables win over the shared ones (one map holds every service's credentials)", () => {
    const env = {
      DATABASE_URL: 'postgres://shared@h/db',
      CATALOG_DATABASE_URL: 'postgres://catalog_app:pw@h/db',
      CATALOG_NATS_PASSWORD: 'catalog-pw',
      NATS_USER: 'someone',
      NATS_PASSWORD: 'shared-pw',
      CALL_CONTEXT_SECRET: SECRET,
    };
    expect(readConfig(commonConfig('catalog', 8081), env)).toMatchObject({
      databaseUrl: 'postgres://catalog_app:pw@h/db',
      migrationDatabaseUrl: 'postgres://catalog_app:pw@h/db',
      natsUser: 'catalog',
      natsPassword: 'catalog-pw',
    });
    expect(readConfig(commonConfig('asset', 8082), env)).toMatchObject({
      databaseUrl: 'postgres://shared@h/db',
      natsUser: 'someone',
      natsPassword: 'shared-pw',
    });
  });

  test('the call context secret is required and at least 32 characters; a NATS password needs its user', () => {
    expect(() => readConfig(commonConfig('catalog', 8081), { DATABASE_URL: 'postgres://u@h/db' })).toThrow(
      /CALL_CONTEXT_SECRET is required/,
    );
    expect(() => readConfig(commonConfig('catalog', 8081), { DATABASE_URL: 'postgres://u@h/db', CALL_CONTEXT_SECRET: 'short' })).toThrow(
      /CALL_CONTEXT_SECRET must be at least 32 characters/,
    );
    expect(() =>
      readConfig(commonConfig('catalog', 8081), {
        DATABASE_URL: 'postgres://u@h/db',
        CALL_CONTEXT_SECRET: SECRET,
        NATS_PASSWORD: 'pw',
      }),
    ).toThrow(/NATS_USER is required/);
  });
});

describe('event envelope of a stream event', () => {
  test('envelopeOf leaves the tenant out, keeps the interface order and normalises occurredAt', () => {
    const row = {
      id: newId(),
      type: 'entity.updated',
      occurred_at: new Date('2026-11-22T05:20:32.123Z'),
      product: 'catalog',
      resource_kind: 'entity',
      resource_id: newId(),
      dmrn: 'DMRN "quoted" \\ back\nslash ü 🎵',
      source_system: 'playout \u2028 line',
      batch_id: newId(),
      schema_version: 2,
      data: { changedFields: ['title', 'artist'] },
    };
    const fromRow = envelopeFromRow(row);
    const event = { tenantId: newId(), ...fromRow, occurredAt: '2026-11-22T07:20:32.123+02:00' };
    const envelope = envelopeOf(event);
    expect(JSON.stringify(envelope)).toBe(JSON.stringify(fromRow));
    expect(Object.keys(envelope)).toEqual([
      'id',
      'type',
      'occurredAt',
      'product',
      'resourceKind',
      'resourceId',
      'dmrn',
      'sourceSystem',
      'batchId',
      'schemaVersion',
      'data',
    ]);
  });
});

describe('ids', () => {
  test('UUIDv7, strictly increasing within a process', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('the random part is fresh for every id, across refills of the random pool', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // 62 random bits per id (after the time and counter): no two ids share them.
    const randomParts = ids.map((id) => id.slice(19));
    expect(new Set(randomParts).size).toBe(ids.length);
    // Not stuck on one value: the last 12 hex digits spread over the whole range.
    const firstDigits = new Set(ids.map((id) => id[24]));
    expect(firstDigits.size).toBe(16);
  });
});

describe('cursors', () => {
  const isPosition = (p: Record<string, unknown>): p is { id: string } => typeof p.id === 'string';
  const signed = cursorCodec<{ id: string }>({ version: 1, secret: 'a-secret-of-enough-length', check: isPosition });

  test('round-trips and is opaque', () => {
    const token = signed.encode({ id: 'abc' });
    expect(token).not.toContain('abc');
    expect(signed.decode(token)).toEqual({ id: 'abc' });
  });

  test('tampered, foreign-secret, other-version and garbage cursors are malformed (400)', () => {
    const token = signed.encode({ id: 'abc' });
    const other = cursorCodec<{ id: string }>({ version: 1, secret: 'another-secret-entirely', check: isPosition });
    const v2 = cursorCodec<{ id: string }>({ version: 2, secret: 'a-secret-of-enough-length', check: isPosition });
    const flipped = `${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`;
    for (const bad of [flipped, other.encode({ id: 'abc' }), v2.encode({ id: 'abc' }), 'not a cursor', '', 'AAAA']) {
      let caught: unknown;
      try {
        signed.decode(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).status).toBe(400);
      expect((caught as AppError).code).toBe('invalid_cursor');
    }
  });
});

describe('logger', () => {
  test('redacts credentials and signed URLs', () => {
    const { logger, lines } = capturingLogger('t');
    logger.info({ headers: { authorization: 'Bearer sk_secret' }, key: 'sk_secret', upload: { url: 'http://x/?signature=abc' } }, 'hello');
    const written = JSON.stringify(lines());
    expect(written).not.toMatch(/sk_secret|signature=abc/);
    expect(written).toContain('[redacted]');
  });
});
