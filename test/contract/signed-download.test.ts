import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, confirmUpload } from '../support/api.js';
import { startSystem, type RunningSystem } from '../support/system.js';

/**
 * What the gateway follows to stream a download is a short-lived URL of the asset listener signed
 * for that object (decision 0020). A stand-in for the network between them (ASSET_INTERNAL_URL)
 * alters the URLs the gateway follows: a tampered or expired one is refused by the asset listener
 * with 403 and its code, which the client receives through the gateway.
 */
type Mode = 'pass' | 'tamper-signature' | 'tamper-parameter' | 'other-object' | 'expire';

interface Interceptor {
  url: string;
  mode: Mode;
  /** Paths with query of the download requests seen (never logged by the services). */
  seen: string[];
  close(): Promise<void>;
}

function alter(target: string, mode: Mode): string {
  const url = new URL(target, 'http://x');
  const params = url.searchParams;
  if (mode === 'tamper-signature') {
    const sig = params.get('sig')!;
    params.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
  } else if (mode === 'tamper-parameter') {
    params.set('fn', 'other-name.png');
  } else if (mode === 'other-object') {
    url.pathname = url.pathname.replace(/[0-9a-f](?=[^/]*$)/, (c) => (c === '0' ? '1' : '0'));
  }
  return `${url.pathname}?${params.toString()}`;
}

/** `assetPort` is asked at each request: the asset listener binds its port after the gateway learnt the interceptor's URL. */
async function startInterceptor(assetPort: () => number): Promise<Interceptor> {
  const state: Interceptor = { url: '', mode: 'pass', seen: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let target = req.url ?? '/';
    const isDownload = target.startsWith('/blobs/');
    if (isDownload) state.seen.push(target);
    const forward = (): void => {
      const upstream = httpRequest(
        { host: '127.0.0.1', port: assetPort(), method: req.method, path: target, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    };
    if (!isDownload || state.mode === 'pass') return forward();
    if (state.mode !== 'expire') {
      target = alter(target, state.mode);
      return forward();
    }
    // Hold the request until its signature has expired, then pass it on unchanged.
    const exp = Number(new URL(target, 'http://x').searchParams.get('exp'));
    setTimeout(forward, Math.max(0, exp * 1000 - Date.now()) + 100);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

let system: RunningSystem;
let interceptor: Interceptor;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  interceptor = await startInterceptor(() => system.assetPort);
  system = await startSystem({
    ASSET_INTERNAL_URL: interceptor.url,
    ASSET_DOWNLOAD_URL_TTL_SECONDS: '2',
  });
  api = apiClient(system.baseUrl);
});
afterAll(async () => {
  await system?.stop();
  await interceptor?.close();
});

test('signed download URLs: followed as signed the file comes back; tampered, moved to another object or expired, 403 with its code', async () => {
  const { key } = await api.tenant();
  const png = Buffer.alloc(256, 9);
  const created = await api.request('POST', '/api/v1/catalog/assets', {
    key,
    body: { retention: 'standalone', upload: { filename: 'cover.png', contentType: 'image/png', size: png.length } },
  });
  expect(created.status).toBe(201);
  const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: png });
  expect(put.status).toBe(200);
  expect((await confirmUpload(api, key, created.body.id)).status).toBe(200);
  const download = () =>
    fetch(`${system.baseUrl}/api/v1/catalog/assets/${created.body.id}/download`, { headers: { authorization: `Bearer ${key}` } });

  interceptor.mode = 'pass';
  const whole = await download();
  expect(whole.status).toBe(200);
  expect(Buffer.from(await whole.arrayBuffer())).toEqual(png);
  expect(interceptor.seen).toHaveLength(1);

  const cases: Array<[Mode, string]> = [
    ['tamper-signature', 'invalid_signature'],
    ['tamper-parameter', 'invalid_signature'],
    ['other-object', 'invalid_signature'],
    ['expire', 'signature_expired'],
  ];
  for (const [mode, code] of cases) {
    interceptor.mode = mode;
    const refused = await download();
    const body = (await refused.json()) as { error: { code: string; requestId: string } };
    expect({ mode, status: refused.status, code: body.error.code }).toEqual({ mode, status: 403, code });
    expect(body.error.requestId).toBe(refused.headers.get('x-request-id'));
  }
  expect(interceptor.seen).toHaveLength(5);
});
