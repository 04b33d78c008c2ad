import {
  callContextKeys,
  callRpc,
  newId,
  openCallContext,
  sealCallContext,
  serveRpc,
  subjectsFor,
  type CallContext,
} from '@catalog/platform';
import { capturingLogger, testBus, testCallContext, testLogger, uniqueNatsPrefix } from '@catalog/testing';

/** Decision 0056: the signed call context, and how a service refuses one that does not verify. */
const keys = callContextKeys('call-context-test-secret-0123456789abcdef');
const call: CallContext = {
  tenantId: newId(),
  keyId: 'k1',
  permissions: ['catalog:api', 'library:api'],
  sourceSystem: 'public-api:k1',
  requestId: 'r1',
};

describe('sealCallContext / openCallContext', () => {
  test('a context opens on the subject it was sealed for, with everything it carried', () => {
    const opened = openCallContext(keys, 'cs.rpc.catalog.getEntity', sealCallContext(keys, 'cs.rpc.catalog.getEntity', call), testLogger());
    expect('call' in opened && opened.call).toEqual(call);
  });

  test('refusals name their reason: missing, malformed, forged (any field changed), another subject, expired', () => {
    const subject = 'cs.rpc.catalog.getEntity';
    const reason = (h: ReturnType<typeof sealCallContext> | undefined, on = subject) => {
      const opened = openCallContext(keys, on, h, testLogger());
      return 'call' in opened ? 'accepted' : { status: opened.status, code: opened.code, reason: opened.details?.reason };
    };
    const refused = (why: string) => ({ status: 401, code: 'call_context_rejected', reason: why });
    expect(reason(undefined)).toEqual(refused('missing'));
    const malformed = sealCallContext(keys, subject, call);
    malformed.set('Catalog-Context-Expires', 'soon');
    expect(reason(malformed)).toEqual(refused('malformed'));
    for (const [header, value] of [
      ['Catalog-Tenant', newId()],
      ['Catalog-Key-Id', 'k2'],
      ['Catalog-Permissions', 'catalog:api,catalog:analysis,library:api'],
      ['Catalog-Source-System', 'playout'],
      ['Catalog-Request-Id', 'r2'],
      ['Catalog-Context-Subject', 'cs.rpc.catalog.listEntities'],
      ['Catalog-Context-Expires', String(Date.now() + 3_600_000)],
    ] as const) {
      const altered = sealCallContext(keys, subject, call);
      altered.set(header, value);
      expect({ header, refusal: reason(altered) }).toEqual({ header, refusal: refused('forged') });
    }
    expect(reason(sealCallContext(callContextKeys('another-deployment-secret-0123456789abcdef'), subject, call))).toEqual(
      refused('forged'),
    );
    expect(reason(sealCallContext(keys, 'cs.rpc.catalog.listEntities', call))).toEqual(refused('wrong_subject'));
    expect(reason(sealCallContext(callContextKeys('call-context-test-secret-0123456789abcdef', -1), subject, call))).toEqual(
      refused('expired'),
    );
  });

  test('the secret must be at least 32 characters', () => {
    expect(() => callContextKeys('short')).toThrow(/at least 32 characters/);
  });
});

test('a service answers a refused call with the error and logs it, without the signature', async () => {
  const { logger, lines } = capturingLogger('context');
  const subjects = subjectsFor(uniqueNatsPrefix('context'));
  const server = await testBus('context-server');
  const client = await testBus('context-client');
  try {
    await serveRpc({
      nc: server,
      subjects,
      callContext: testCallContext(),
      service: 'ctx',
      version: '1.0.0',
      logger,
      handlers: { op: async () => ({ body: 'done' }) },
    });
    const forged = sealCallContext(callContextKeys('a-secret-the-service-does-not-know-0123456789'), subjects.rpc('ctx', 'op'), call);
    const reply = (
      await client.request(subjects.rpc('ctx', 'op'), JSON.stringify({ params: {}, query: {}, body: null }), {
        headers: forged,
        timeout: 5_000,
      })
    ).json();
    expect(reply).toEqual({
      ok: false,
      error: {
        status: 401,
        code: 'call_context_rejected',
        message: 'the call context signature does not match',
        details: { reason: 'forged' },
      },
    });
    const logged = lines().find((line) => line.msg === 'call refused: its call context does not verify');
    expect(logged).toMatchObject({
      level: 40,
      reason: 'forged',
      operation: 'op',
      subject: subjects.rpc('ctx', 'op'),
      claimedTenant: call.tenantId,
      claimedRequestId: 'r1',
    });
    expect(JSON.stringify(lines())).not.toContain(forged.get('Catalog-Context-Signature'));
    // Signed with the right keys, the same call is answered.
    expect(
      await callRpc({ nc: client, subjects, callContext: testCallContext() }, 'ctx', 'op', { params: {}, query: {}, body: null }, call),
    ).toEqual({ ok: true, status: 200, body: 'done' });
  } finally {
    await server.drain();
    await client.drain();
  }
});
