import { MAX_JSON_DEPTH } from '@catalog/platform';
import { apiClient } from '@catalog/testing';
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from './support.js';

/**
 * What the gateway takes as a JSON body (decision 0116): UTF-8 only (RFC 8259),
 * and at most MAX_JSON_DEPTH levels of arrays and objects, counted on the raw bytes before the
 * body is parsed, so a body of 100,000 brackets is a 400 and never reaches JSON.parse or the
 * JSON.stringify of the bus call (which overflowed the stack: a 500).
 */
describe('JSON request bodies at the gateway', () => {
  let stack: TestGateway;
  let api: ReturnType<typeof apiClient>;
  let key: string;

  beforeAll(async () => {
    stack = await startTestGateway({ IP_RATE_LIMIT_PER_MINUTE: '0', RPC_TIMEOUT_MS: '2000' });
    api = apiClient(stack.gateway.url, ADMIN_TOKEN);
    ({ key } = await api.tenant());
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const send = async (path: string, body: string | Buffer, authorization: string) => {
    const response = await fetch(`${stack.gateway.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${authorization}`, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: (await response.json()) as { error?: { code: string; details?: unknown }; name?: string } };
  };
  const createEntity = (body: string | Buffer) => send('/api/v1/catalog/entities', body, key);
  const createOrganization = (body: string | Buffer) => send('/admin/v1/organizations', body, ADMIN_TOKEN);
  const nested = (depth: number, open: string, close: string, inner = '1') => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;

  test('arrays and objects nested deeper than the bound are 400 invalid_json, never a 500', async () => {
    const deepObject = nested(5_000, '{"a":', '}');
    for (const body of [
      nested(100_000, '[', ']'),
      '['.repeat(100_000),
      `{"type":"song","title":"x","artist":${deepObject}}`,
      `{"type":"song","title":"x","artist":${nested(MAX_JSON_DEPTH, '[', ']')}}`,
    ]) {
      const answer = await createEntity(body);
      expect({ length: body.length, status: answer.status, error: answer.body.error }).toMatchObject({
        length: body.length,
        status: 400,
        error: { code: 'invalid_json', details: { maxDepth: MAX_JSON_DEPTH } },
      });
    }
  });

  test('the bound itself is allowed, and brackets inside strings (also after escapes) do not count', async () => {
    // MAX_JSON_DEPTH levels in all (the body is the first): parsed, then refused by the schema.
    const deepest = await createOrganization(`{"name":${nested(MAX_JSON_DEPTH - 1, '[', ']', '"x"')},"products":["catalog"]}`);
    expect({ status: deepest.status, code: deepest.body.error?.code }).toEqual({ status: 400, code: 'invalid_body' });
    const name = `\\"[{${'['.repeat(100)}\\\\`;
    const created = await createOrganization(`{"name":"${name}","products":["catalog"]}`);
    expect({ status: created.status, error: created.body.error }).toEqual({ status: 201, error: undefined });
    expect(created.body.name).toBe(JSON.parse(`"${name}"`));
  });

  test('a body that is not UTF-8 is 400 invalid_json, never stored with U+FFFD in its place', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('","products":["catalog"]}')]);
    const overlong = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('","products":["catalog"]}')]);
    const surrogate = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('","products":["catalog"]}')]);
    const cut = Buffer.from('{"name":"€","products":["catalog"]}').subarray(0, 11);
    for (const body of [latin1, overlong, surrogate, cut]) {
      const answer = await createOrganization(body);
      expect({ body: body.toString('hex'), status: answer.status, code: answer.body.error?.code }).toEqual({
        body: body.toString('hex'),
        status: 400,
        code: 'invalid_json',
      });
    }
    const utf8 = await createOrganization(Buffer.from('{"name":"Café €","products":["catalog"]}'));
    expect({ status: utf8.status, name: utf8.body.name }).toEqual({ status: 201, name: 'Café €' });
  });
});
