import { connect } from 'node:net';
import { routes, type RouteDefinition } from '@catalog/contracts';
import { newId } from '@catalog/platform';
import { ADMIN_TOKEN } from '../support/system.js';
import { useSystem } from '../support/use-system.js';

/** The asset service's largest file: small, so that an upload past it is quick to send. */
const ASSET_MAX_BYTES = 1024 * 1024;

/**
 * What the edge takes of a request's text (decision 0116): integers in the
 * query written in decimal digits only on every route, and an upload of more bytes than its
 * target declared answered 413 with the error body, never a false 503; nor one the asset service
 * refuses before the end of its body (decision 0124).
 */
const sut = useSystem({ env: { ASSET_MAX_BYTES: String(ASSET_MAX_BYTES) } });

let tenant: { orgId: string; key: string };

beforeAll(async () => {
  const orgId = await sut.api.organization({ products: ['catalog', 'library'] });
  const { key } = await sut.api.apiKey(orgId, { permissions: ['catalog:api', 'catalog:analysis', 'library:api'] });
  tenant = { orgId, key };
});

/** The query parameters of a route typed integer or number (a union with null included). */
function numericParameters(route: RouteDefinition): Array<{ name: string; integer: boolean }> {
  const properties = (route.query as { properties?: Record<string, { type?: string; anyOf?: Array<{ type?: string }> }> } | undefined)
    ?.properties;
  return Object.entries(properties ?? {}).flatMap(([name, schema]): Array<{ name: string; integer: boolean }> => {
    const types = (schema.anyOf ?? [schema]).map((member) => member.type);
    if (types.includes('integer')) return [{ name, integer: true }];
    return types.includes('number') ? [{ name, integer: false }] : [];
  });
}

/** The route's path with its parameters filled in (an organisation that exists, any other id). */
const pathOf = (route: RouteDefinition): string =>
  route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_whole, name: string) => (name === 'orgId' ? tenant.orgId : newId()));

const call = (route: RouteDefinition, query: string) =>
  sut.api.request(route.method.toUpperCase(), `${pathOf(route)}?${query}`, {
    key: route.auth.kind === 'admin' ? ADMIN_TOKEN : tenant.key,
  });

describe('numbers in the query', () => {
  const numeric = (routes as readonly RouteDefinition[]).filter((route) => numericParameters(route).length > 0);

  test('the route table has query integers to check (listEntities, listTracks, the feeds, the ledger)', () => {
    expect(numeric.map((route) => route.operationId)).toEqual(
      expect.arrayContaining(['listEntities', 'listTracks', 'listEvents', 'listLibraryEvents', 'getCreditLedger']),
    );
  });

  test('an integer written other than in decimal digits is 400 invalid_query on every route, for every integer parameter', async () => {
    const misspelt = ['0x10', '%205', '5%20', '1e1', '5.0', '+5', '0b1', '%09%0A5', '5_0', 'Infinity', ''];
    for (const route of numeric) {
      for (const { name } of numericParameters(route).filter((p) => p.integer)) {
        for (const value of misspelt) {
          const answer = await call(route, `${name}=${value}`);
          expect({ route: route.operationId, name, value, status: answer.status, error: answer.body?.error }).toMatchObject({
            route: route.operationId,
            name,
            value,
            status: 400,
            error: { code: 'invalid_query', details: { fields: [{ location: 'query', path: `/${name}` }] } },
          });
        }
      }
      // Digits are taken (the answer is the route's own: a page, or 404 for an id nobody has).
      const [first] = numericParameters(route).filter((p) => p.integer);
      const plain = await call(route, `${first!.name}=5`);
      expect({ route: route.operationId, status: plain.status }).toEqual({ route: route.operationId, status: expect.any(Number) });
      expect(plain.body?.error?.code).not.toBe('invalid_query');
    }
  });

  test('any other number is written as in JSON: hex, white space and Infinity are refused, 1e1 and 5.0 taken', async () => {
    const listTracks = numeric.find((route) => route.operationId === 'listTracks')!;
    for (const value of ['0x10', '%205', 'Infinity', '.5', '5.', '']) {
      const answer = await call(listTracks, `bpmMin=${value}`);
      expect({ value, status: answer.status, code: answer.body?.error?.code }).toEqual({ value, status: 400, code: 'invalid_query' });
    }
    for (const value of ['1e1', '5.0', '120', '-14.5']) {
      const name = value.startsWith('-') ? 'loudnessMin' : 'bpmMin';
      const answer = await call(listTracks, `${name}=${value}`);
      expect({ value, status: answer.status }).toEqual({ value, status: 200 });
    }
  });
});

/**
 * Sends raw bytes to the gateway and reads what it answers until it closes the connection;
 * `readAfterWriting`: only once all of them are written, and nothing when writing them failed, as
 * clients that send a whole body before they look at the answer do (Python's http.client: a reset
 * under its write is a BrokenPipeError, and it never reads the answer).
 */
/** What the tests read of an answer: its status, its JSON object body (else null), its whole text. */
interface Answer {
  status: number | null;
  body: { error?: { code?: string }; size?: number } | null;
  text: string;
}

function exchange(request: Buffer, readAfterWriting = false): Promise<Answer> {
  const { port } = new URL(sut.system.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 20 s')), 20_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      // The gateway may close while the rest of a refused body is still being written.
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE' && (error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      // The answers here have a Content-Length (the gateway's errors, the listener's upload answer).
      const payload = text.split('\r\n\r\n').slice(1).join('\r\n\r\n');
      let body: Answer['body'] = null;
      try {
        const parsed: unknown = JSON.parse(payload);
        if (typeof parsed === 'object') body = parsed as Answer['body'];
      } catch {
        // Not JSON (the listener's plain answers): `text` has it.
      }
      resolve({ status: status ? Number(status[1]) : null, body, text });
    });
    if (readAfterWriting) socket.pause();
    socket.write(request, (error) => {
      if (!error) socket.resume();
    });
  });
}

describe('an upload longer than its target declared', () => {
  const DECLARED = 1_000;

  /** A new audio version of a new entity waiting for DECLARED bytes: its upload URL's target. */
  async function uploadTarget(): Promise<string> {
    const entity = await sut.api.request('POST', '/api/v1/catalog/entities', { key: tenant.key, body: { type: 'song', title: 'Long' } });
    const created = await sut.api.request('POST', `/api/v1/catalog/entities/${entity.body.id}/versions`, {
      key: tenant.key,
      body: {
        source: { upload: { filename: 'long.wav', contentType: 'audio/wav', size: DECLARED } },
        label: 'Main',
        versionType: 'radio_edit',
      },
    });
    expect(created.status).toBe(201);
    const url = new URL(created.body.upload.url);
    return `${url.pathname}${url.search}`;
  }

  const head = (target: string, framing: string) =>
    Buffer.from(`PUT ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/wav\r\n${framing}Connection: close\r\n\r\n`);

  const expectTooLarge = (answer: Answer) => {
    expect({ status: answer.status, error: answer.body?.error }).toEqual({
      status: 413,
      error: { code: 'payload_too_large', message: expect.any(String), details: { limitBytes: DECLARED }, requestId: expect.any(String) },
    });
  };

  /** The upload of the declared size, which the target still takes after a refused one. */
  const uploadWhole = (target: string) =>
    exchange(Buffer.concat([head(target, `Content-Length: ${DECLARED}\r\n`), Buffer.alloc(DECLARED, 7)]));

  test('a Content-Length above the declared size is 413 with the error body', async () => {
    for (const length of [DECLARED + 1, 64 * DECLARED, 4 * 1024 * 1024]) {
      const target = await uploadTarget();
      expectTooLarge(await exchange(Buffer.concat([head(target, `Content-Length: ${length}\r\n`), Buffer.alloc(length, 7)])));
      expect((await uploadWhole(target)).status).toBe(200);
    }
  });

  test('a chunked body that goes on past the declared size is 413 with the error body', async () => {
    for (const extra of [1, 64 * DECLARED, 4 * 1024 * 1024]) {
      const bytes = Buffer.alloc(DECLARED + extra, 7);
      const chunked = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
      const target = await uploadTarget();
      expectTooLarge(await exchange(Buffer.concat([head(target, 'Transfer-Encoding: chunked\r\n'), chunked])));
      // Nothing of it was kept: the target takes its whole upload afterwards.
      expect((await uploadWhole(target)).status).toBe(200);
    }
  });

  test('bytes past a Content-Length of the declared size end the body: the rest is a malformed request, 400, never a 5xx', async () => {
    const target = await uploadTarget();
    const answer = await exchange(Buffer.concat([head(target, `Content-Length: ${DECLARED}\r\n`), Buffer.alloc(DECLARED + 5_000, 7)]));
    expect(answer.text).toMatch(/^HTTP\/1\.1 (200|400) /);
    expect(answer.text).not.toMatch(/HTTP\/1\.1 5\d\d /);
  });

  test('the declared size itself is taken', async () => {
    const answer = await uploadWhole(await uploadTarget());
    expect({ status: answer.status, size: answer.body?.size }).toEqual({ status: 200, size: DECLARED });
  });
});

describe('an upload the asset service refuses before the end of its body (decision 0124)', () => {
  /** Several MiB: far more than the asset listener reads before it answers. */
  const SENT = 8 * 1024 * 1024;

  /** The upload URL's target of a new audio version whose size was not declared (no `len`). */
  async function undeclaredTarget(): Promise<URL> {
    const entity = await sut.api.request('POST', '/api/v1/catalog/entities', {
      key: tenant.key,
      body: { type: 'song', title: 'Undeclared' },
    });
    const created = await sut.api.request('POST', `/api/v1/catalog/entities/${entity.body.id}/versions`, {
      key: tenant.key,
      body: { source: { upload: { filename: 'any.wav', contentType: 'audio/wav' } }, label: 'Main', versionType: 'radio_edit' },
    });
    expect(created.status).toBe(201);
    const url = new URL(created.body.upload.url);
    expect(url.searchParams.has('len')).toBe(false);
    return url;
  }

  const request = (target: URL, framing: string, body: Buffer) =>
    Buffer.concat([
      Buffer.from(
        `PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/wav\r\n${framing}Connection: close\r\n\r\n`,
      ),
      body,
    ]);
  const chunked = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);

  test('a chunked body past ASSET_MAX_BYTES on a target of no declared size is 413 with the error body, never a false 503', async () => {
    const answer = await exchange(request(await undeclaredTarget(), 'Transfer-Encoding: chunked\r\n', chunked(Buffer.alloc(SENT, 7))));
    expect({ status: answer.status, error: answer.body?.error }).toEqual({
      status: 413,
      error: {
        code: 'payload_too_large',
        message: expect.any(String),
        details: { limitBytes: ASSET_MAX_BYTES },
        requestId: expect.any(String),
      },
    });
  });

  test('a tampered signature is 403 invalid_signature with the error body, with a length or chunked', async () => {
    const target = await undeclaredTarget();
    const sig = target.searchParams.get('sig')!;
    target.searchParams.set('sig', `${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`);
    const bytes = Buffer.alloc(SENT, 7);
    for (const [framing, body] of [
      [`Content-Length: ${SENT}\r\n`, bytes],
      ['Transfer-Encoding: chunked\r\n', chunked(bytes)],
    ] as const) {
      const answer = await exchange(request(target, framing, body));
      expect({ framing, status: answer.status, error: answer.body?.error }).toEqual({
        framing,
        status: 403,
        error: { code: 'invalid_signature', message: expect.any(String), requestId: expect.any(String) },
      });
    }
  });

  test('a client that reads only after writing its whole body gets the answer too: 413 of a declared size, 403 of the asset service', async () => {
    const entity = await sut.api.request('POST', '/api/v1/catalog/entities', {
      key: tenant.key,
      body: { type: 'song', title: 'Declared' },
    });
    const created = await sut.api.request('POST', `/api/v1/catalog/entities/${entity.body.id}/versions`, {
      key: tenant.key,
      body: { source: { upload: { filename: 'a.wav', contentType: 'audio/wav', size: 1_000 } }, label: 'Main', versionType: 'radio_edit' },
    });
    const declared = new URL(created.body.upload.url);
    const tooLong = await exchange(request(declared, `Content-Length: ${SENT}\r\n`, Buffer.alloc(SENT, 7)), true);
    expect({ status: tooLong.status, code: tooLong.body?.error?.code }).toEqual({ status: 413, code: 'payload_too_large' });

    const tampered = await undeclaredTarget();
    tampered.searchParams.set('sig', 'AAAA');
    const refused = await exchange(request(tampered, `Content-Length: ${SENT}\r\n`, Buffer.alloc(SENT, 7)), true);
    expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({ status: 403, code: 'invalid_signature' });
  });
});
