import { operationById } from '@catalog/contracts';
import { callRpc, newId, subjectsFor, type NatsConnection } from '@catalog/platform';
import { replyDrift, serveStandIn, testBus, testCallContext, testLogger, uniqueNatsPrefix } from '@catalog/testing';

/**
 * The stand-ins that play another service in these tests answer only what the route table says
 * that service answers: a stand-in whose reply drifted from the contract fails its test.
 */
describe('stand-ins are held to the route table', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await testBus('stand-in-test');
  });
  afterAll(async () => {
    await nc?.drain();
  });

  test('a reply off the schema is answered as an internal error, and stopping the stand-in fails naming it', async () => {
    const subjects = subjectsFor(uniqueNatsPrefix('standin'));
    const standIn = await serveStandIn({
      nc,
      subjects,
      service: 'catalog',
      logger: testLogger('catalog-stand-in'),
      callContext: testCallContext(),
      handlers: { recordAssetState: async () => ({ body: { analysesRequested: 'no' } }) },
    });
    const context = { tenantId: newId(), keyId: null, sourceSystem: 'test', requestId: newId() };
    const reply = await callRpc(
      { nc, subjects, callContext: testCallContext() },
      'catalog',
      'recordAssetState',
      { params: {}, query: {}, body: {} },
      context,
    );
    expect(reply).toMatchObject({ ok: false, error: { status: 500, code: 'internal_error' } });
    expect(standIn.drift).toEqual(['recordAssetState: body/analysesRequested must be boolean']);
    await expect(standIn.stop()).rejects.toThrow(/recordAssetState: body\/analysesRequested must be boolean/);
  });

  test('an operation the played service does not answer cannot be served', async () => {
    await expect(
      serveStandIn({
        nc,
        subjects: subjectsFor(uniqueNatsPrefix('standin')),
        service: 'asset',
        logger: testLogger('asset-stand-in'),
        callContext: testCallContext(),
        handlers: { recordAssetState: async () => ({ body: { analysesRequested: false } }) },
      }),
    ).rejects.toThrow('recordAssetState is not an operation of the asset service in the route table');
  });

  test('statuses, streams and bodies are checked as the table has them', () => {
    const record = operationById('recordAssetState');
    expect(replyDrift(record, { body: { analysesRequested: true } })).toEqual([]);
    expect(replyDrift(record, { status: 201, body: { analysesRequested: true } })).toEqual(['status 201, the table says 200']);
    expect(replyDrift(record, { body: {} })).toEqual(['body/analysesRequested is required']);
    const download = operationById('downloadAsset');
    expect(replyDrift(download, { body: { location: 'http://127.0.0.1/blobs/x?sig=y' } })).toEqual([]);
    expect(replyDrift(download, { body: { url: 'http://127.0.0.1/blobs/x' } })).toEqual(['a stream answered without a {location} body']);
    const analysis = operationById('getAnalysis');
    expect(replyDrift(analysis, { status: 303, body: { location: 'http://127.0.0.1/results/j?sig=x' } })).toEqual([]);
    expect(replyDrift(analysis, { status: 303, body: {} })).toEqual(['303 without a {location} body']);
    expect(replyDrift(analysis, { body: { jobId: 'not a job' } }).length).toBeGreaterThan(0);
  });
});
