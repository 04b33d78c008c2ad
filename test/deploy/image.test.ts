import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serviceNodeFlags } from '@catalog/platform';
import { chartProcess } from './support/chart-process.js';
import { component, deployment, ofKind, render, type Manifest } from './support/helm.js';
import {
  apiClient,
  createTestDatabase,
  eventually,
  freePort,
  serviceEnvironment,
  sineWav,
  startOtlpCollector,
  uniqueNatsPrefix,
  type TestDatabase,
} from '@catalog/testing';

/**
 * The container image's production tree, built by scripts/image-tree.sh exactly as deploy/Dockerfile
 * builds it (no container runtime here): each of the six services must start from it, with only
 * runtime dependencies installed, and answer /readyz (Postgres and NATS reached, migrations
 * applied), run as the Helm chart runs it.
 */
const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVICES = ['gateway', 'catalog', 'asset', 'analysis', 'events', 'library'];
const ADMIN_TOKEN = 'image-test-admin-token';

let scratch: string;
let tree: string;
let database: TestDatabase;
/** What the chart gives each service from its Secret: its own database role and NATS user, the owner for migrations. */
let credentials: Record<string, string>;
const children: ChildProcess[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'catalog-image-test-'));
  tree = join(scratch, 'app');
  await run('bash', [join(repoRoot, 'scripts', 'image-tree.sh'), tree], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
  database = await createTestDatabase('image');
  credentials = await serviceEnvironment(database);
  // Building the tree installs each service's production dependencies (npm install where the
  // registry mirror lacks other platforms' optional packages): minutes on two cores that the rest
  // of the suite shares.
}, 600_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => (child.exitCode !== null ? undefined : new Promise((resolve) => child.once('exit', resolve)))));
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('container image tree', () => {
  test('holds the built services and their runtime dependencies only', () => {
    for (const service of SERVICES) expect(existsSync(join(tree, 'services', service, 'dist', 'main.js'))).toBe(true);
    expect(existsSync(join(tree, 'packages', 'platform', 'dist', 'observability', 'telemetry-register.js'))).toBe(true);
    expect(existsSync(join(tree, 'deploy', 'migrate.mjs'))).toBe(true);
    for (const devOnly of ['typescript', 'jest', 'tsx', 'turbo', 'eslint', 'autocannon', 'kubernetes-models']) {
      expect({ devOnly, present: existsSync(join(tree, 'node_modules', devOnly)) }).toEqual({ devOnly, present: false });
    }
    expect(existsSync(join(tree, 'test'))).toBe(false);
    expect(existsSync(join(tree, 'bench'))).toBe(false);
    for (const dir of ['services', 'packages']) {
      for (const name of readdirSync(join(tree, dir))) expect(existsSync(join(tree, dir, name, 'src'))).toBe(false);
    }
  });

  test('deploy/Dockerfile builds that tree (with the migration entry point) and starts a service from it', () => {
    const dockerfile = readFileSync(join(repoRoot, 'deploy', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/RUN bash scripts\/image-tree\.sh \/app/);
    expect(dockerfile).toMatch(/COPY --from=build (--chown=root:root )?\/app \/app/);
    const command = [
      'node',
      ...serviceNodeFlags('gateway'),
      '--import',
      '@catalog/platform/telemetry-register',
      'services/gateway/dist/main.js',
    ];
    expect(dockerfile).toContain(`CMD ${JSON.stringify(command).replaceAll(',', ', ')}`);
  });

  /** The local values of the Secret's keys: the test database's roles, this run's NATS users, the other secrets. */
  const secrets = (): Record<string, string> => ({
    ...credentials,
    ADMIN_TOKEN,
    FEED_CURSOR_SECRET: 'image-test-feed-cursor-secret-0123456789',
    BLOB_SIGNING_SECRET: 'image-test-blob-signing-secret-0123456789abcdef',
  });

  /**
   * The chart rendered for this machine: local NATS and ports, the fs blob store (its volume a
   * scratch folder, so that uploads and downloads pass through the gateway and asset processes),
   * everything else as installed.
   */
  async function renderHere(ports: Record<string, number>, prefix: string, ...sets: string[]): Promise<Manifest[]> {
    return render(
      'existingSecret=catalog-secrets',
      `nats.url=${credentials.NATS_URL}`,
      `nats.prefix=${prefix}`,
      `publicBaseUrl=http://127.0.0.1:${ports.gateway ?? 8080}`,
      'blob.backend=fs',
      'logLevel=warn',
      ...Object.entries(ports).map(([service, port]) => `services.${service}.port=${port}`),
      ...sets,
    );
  }

  /** Runs `workload`'s container from the tree with exactly the command and environment the chart renders (secrets local). */
  function startAsChart(manifests: Manifest[], workload: Manifest): ChildProcess {
    const assetService = ofKind(manifests, 'Service').find((m) => component(m) === 'asset')!.metadata.name;
    const { command, env } = chartProcess(workload, {
      secrets: secrets(),
      fields: { 'status.podIP': '127.0.0.1' },
      hosts: { [assetService]: '127.0.0.1' },
      mounts: { '/data/blobs': join(scratch, 'blobs') },
    });
    expect(command[0]).toBe('node');
    // Nothing of the test's environment: only what the chart sets (and PATH, for ffmpeg).
    const child = spawn(process.execPath, command.slice(1), {
      cwd: tree,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    return child;
  }

  /** The exit code of `child`, with its standard error when it is not 0. */
  const exited = (child: ChildProcess): Promise<{ code: number | null; stderr: string }> => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr: code === 0 ? '' : stderr })));
  };

  /** The status of the first successful `/readyz` of the service at `url` (fails after 60 s). */
  const untilReady = (url: string): Promise<number> =>
    eventually(
      () =>
        fetch(`${url}/readyz`).then(
          (r) => (r.ok ? r.status : undefined),
          () => undefined,
        ),
      60_000,
      200,
    );

  /** The gateway of the six services started from the tree by the next test. */
  let gatewayUrl: string | undefined;

  test("the chart's migration Jobs, then its six Deployments, run from it exactly as rendered: every service becomes ready", async () => {
    const prefix = uniqueNatsPrefix('image');
    const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (service) => [service, await freePort()] as const)));
    const manifests = await renderHere(ports, prefix);
    // The hook Jobs in their weight order, each to its end, before any service starts (MIGRATE_ON_START=false).
    const jobs = ofKind(manifests, 'Job').sort(
      (a, b) => Number(a.metadata.annotations!['helm.sh/hook-weight']) - Number(b.metadata.annotations!['helm.sh/hook-weight']),
    );
    expect(jobs).toHaveLength(6);
    for (const job of jobs)
      expect({ job: job.metadata.name, ...(await exited(startAsChart(manifests, job))) }).toEqual({
        job: job.metadata.name,
        code: 0,
        stderr: '',
      });
    for (const service of SERVICES) startAsChart(manifests, deployment(manifests, service));
    for (const service of SERVICES)
      expect({ service, status: await untilReady(`http://127.0.0.1:${ports[service]}`) }).toEqual({ service, status: 200 });
    gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
    const openapi = await fetch(`${gatewayUrl}/api/v1/openapi.json`);
    expect(openapi.status).toBe(200);
  }, 180_000);

  test('a 64 MiB file goes up and down through the gateway and asset processes intact (chunks released as they pass)', async () => {
    if (!gatewayUrl) throw new Error('the services did not start (previous test)');
    const api = apiClient(gatewayUrl, ADMIN_TOKEN);
    const { key } = await api.tenant();
    const wav = await sineWav(761); // 44.1 kHz 16-bit mono: ~64 MiB
    const checksum = createHash('sha256').update(wav).digest('hex');
    const created = await api.request('POST', '/api/v1/catalog/assets', {
      key,
      body: {
        retention: 'standalone',
        upload: { filename: 'noise.wav', contentType: 'audio/wav', size: wav.length, checksum: `sha256:${checksum}` },
      },
    });
    expect(created.status).toBe(201);
    const put = await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: wav });
    expect(put.status).toBe(200);
    const confirmed = await api.request('POST', `/api/v1/catalog/assets/${created.body.assetId}/confirm`, { key });
    expect(confirmed.body).toMatchObject({ status: 'ONLINE', size: wav.length });
    const download = await fetch(`${gatewayUrl}/api/v1/catalog/assets/${created.body.assetId}/download`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(download.status).toBe(200);
    const received = createHash('sha256');
    let size = 0;
    for await (const chunk of download.body!) {
      received.update(chunk);
      size += chunk.length;
    }
    expect({ size, sha256: received.digest('hex') }).toEqual({ size: wav.length, sha256: checksum });
    const range = await fetch(`${gatewayUrl}/api/v1/catalog/assets/${created.body.assetId}/download`, {
      headers: { authorization: `Bearer ${key}`, range: 'bytes=1000000-1999999' },
    });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer()).equals(wav.subarray(1_000_000, 2_000_000))).toBe(true);
  }, 120_000);

  test('with an OTLP endpoint, a service from it exports its spans (the register loads only runtime dependencies)', async () => {
    const collector = await startOtlpCollector();
    try {
      const port = await freePort();
      const manifests = await renderHere(
        { gateway: port },
        uniqueNatsPrefix('image-otel'),
        `otlpEndpoint=${collector.url}`,
        'services.gateway.env.OTEL_BSP_SCHEDULE_DELAY=100',
      );
      startAsChart(manifests, deployment(manifests, 'gateway'));
      const url = `http://127.0.0.1:${port}`;
      expect(await untilReady(url)).toBe(200);
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      await fetch(`${url}/api/v1/openapi.json`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
      const body = await eventually(async () => collector.traces.find((batch) => batch.includes(traceId)), 15_000, 100);
      expect(body).toContain('gateway');
    } finally {
      await collector.close();
    }
  }, 120_000);
});
