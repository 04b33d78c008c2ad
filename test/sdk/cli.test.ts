import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually } from '@catalog/testing';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';
import { EVERYTHING, toneFolder } from './helpers.js';

/**
 * catalogctl, run as a user runs it (the package's bin, a child process) against the running
 * system: login stores the key in a 0600 file, every command answers --json, and the exit codes
 * tell usage, authentication, not found and unavailable apart.
 */
const sut = useSystem({ env: { ...PATIENT_CALLS, ANALYSIS_CONCURRENCY: '1' } });
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'sdk', 'bin', 'catalogctl.js');

let home: string;
let files: Awaited<ReturnType<typeof toneFolder>>;
let key: string;
beforeAll(async () => {
  files = await toneFolder();
  home = await mkdtemp(join(tmpdir(), 'catalogctl-home-'));
  const tenant = await sut.api.tenant(EVERYTHING);
  expect((await sut.api.admin('POST', `/admin/v1/organizations/${tenant.orgId}/credits`, { amount: 20, reason: 'test' })).status).toBe(201);
  key = tenant.key;
});
afterAll(async () => {
  await files.remove();
  await rm(home, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs catalogctl with a config and state home of the test's own; `input` is its stdin. */
function catalogctl(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      {
        env: {
          PATH: process.env.PATH!,
          HOME: home,
          XDG_CONFIG_HOME: join(home, 'config'),
          XDG_STATE_HOME: join(home, 'state'),
          ...options.env,
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
    child.stdin!.end(options.input ?? '');
  });
}

const json = (run: Run) => JSON.parse(run.stdout);
const lines = (run: Run) =>
  run.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

test('before login a command is a usage error (2); a refused key is not stored (3); login stores the key in a 0600 file', async () => {
  expect((await catalogctl(['entities', 'ls'])).code).toBe(2);
  const refused = await catalogctl(['login', '--url', sut.system.baseUrl], { input: 'sk_wrong\n' });
  expect(refused.code).toBe(3);
  await expect(stat(join(home, 'config', 'catalogctl', 'credentials.json'))).rejects.toThrow();

  const login = await catalogctl(['login', '--url', sut.system.baseUrl, '--json'], { input: `${key}\n` });
  expect(login).toMatchObject({ code: 0 });
  const file = join(home, 'config', 'catalogctl', 'credentials.json');
  expect(json(login)).toEqual({ baseUrl: sut.system.baseUrl, credentialsFile: file });
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
  expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ baseUrl: sut.system.baseUrl, apiKey: key });
});

test('entities create, get and ls, in JSON and as text; an unknown id exits 4 with the error as JSON', async () => {
  const created = await catalogctl(['entities', 'create', '--type', 'song', '--title', 'Blue Monday', '--artist', 'New Order', '--json']);
  expect(created.code).toBe(0);
  const entity = json(created);
  expect(entity).toMatchObject({ type: 'song', title: 'Blue Monday', artist: 'New Order' });

  expect(json(await catalogctl(['entities', 'get', entity.id, '--json']))).toEqual(entity);
  expect(json(await catalogctl(['entities', 'ls', '--json'])).entities).toContainEqual(entity);
  const text = await catalogctl(['entities', 'ls']);
  expect(text.stdout).toMatch(new RegExp(`${entity.id}\\s+song\\s+Blue Monday\\s+New Order`));

  const missing = await catalogctl(['entities', 'get', '0190a1b2-0000-7000-8000-000000000001', '--json']);
  expect(missing.code).toBe(4);
  expect(JSON.parse(missing.stderr)).toMatchObject({ error: { status: 404, code: 'not_found' }, exitCode: 4 });
});

test('usage mistakes exit 2; a server that does not answer exits 5', async () => {
  for (const args of [['entities', 'get'], ['entities', 'create', '--title', 'x'], ['nonsense'], ['entities', 'ls', '--bogus']]) {
    const run = await catalogctl(args);
    expect({ args, code: run.code }).toEqual({ args, code: 2 });
  }
  const down = await catalogctl(['entities', 'ls', '--url', 'http://127.0.0.1:9', '--json']);
  expect(down.code).toBe(5);
  expect(JSON.parse(down.stderr)).toMatchObject({ error: { code: 'network_error' }, exitCode: 5 });
});

test('versions add uploads with a progress bar; analyses run --wait prints the typed result; library search finds the track', async () => {
  const entity = json(await catalogctl(['entities', 'create', '--type', 'song', '--title', 'Atmosphere', '--json']));
  const added = await catalogctl(['versions', 'add', entity.id, files.tone, '--version-type', 'radio_edit', '--primary']);
  expect(added.code).toBe(0);
  expect(added.stderr).toMatch(/tone\.wav \[#+\] 100%/);
  expect(added.stdout).toMatch(/ONLINE sha256:[0-9a-f]{64}/);

  const analysed = await catalogctl(['analyses', 'run', 'loudness', files.tone, '--wait', '--json']);
  expect(analysed.code).toBe(0);
  expect(json(analysed)).toMatchObject({ type: 'loudness', status: 'SUCCEEDED', result: { integratedLufs: expect.any(Number) } });

  const found = await eventually(
    async () => {
      const run = await catalogctl(['library', 'search', 'atmos', '--json']);
      return json(run).tracks.length > 0 ? json(run) : undefined;
    },
    60_000,
    500,
  );
  expect(found.tracks).toEqual([expect.objectContaining({ entityId: entity.id, title: 'Atmosphere' })]);
}, 180_000);

test('events tail --types prints the feed as JSON lines; with --name it goes on where the last run stopped', async () => {
  const { key: own } = await sut.api.tenant();
  const env = { CATALOG_API_KEY: own };
  const first = json(await catalogctl(['entities', 'create', '--type', 'song', '--title', 'First', '--json'], { env }));
  await eventually(
    async () =>
      (await catalogctl(['events', 'tail', '--types', 'entity.created', '--no-follow', '--json'], { env })).stdout ? true : undefined,
    30_000,
    200,
  );

  const tail = ['events', 'tail', '--types', 'entity.created', '--name', 'script', '--no-follow', '--json'];
  const run1 = await catalogctl(tail, { env });
  expect(run1.code).toBe(0);
  expect(lines(run1)).toEqual([expect.objectContaining({ type: 'entity.created', resourceId: first.id })]);
  expect((await catalogctl(tail, { env })).stdout).toBe('');

  const second = json(await catalogctl(['entities', 'create', '--type', 'song', '--title', 'Second', '--json'], { env }));
  const run3 = await eventually(
    async () => {
      const run = await catalogctl(tail, { env });
      return run.stdout ? run : undefined;
    },
    30_000,
    200,
  );
  expect(lines(run3).map((e) => e.resourceId)).toEqual([second.id]);

  const counted = await catalogctl(['events', 'tail', '--count', '1'], { env });
  expect(counted.code).toBe(0);
  expect(counted.stdout.trim().split('\n')).toHaveLength(1);
  expect(counted.stdout).toContain('entity.created');
}, 180_000);
