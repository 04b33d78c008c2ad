/**
 * `npm start`: runs the whole system locally. Starts the six services as separate processes (each
 * migrates its schema, registers on NATS and serves /healthz), shows their logs in one terminal,
 * creates a demo organisation with an API key and prints it, and stops everything on Ctrl-C.
 * Postgres and NATS are started beforehand by scripts/start.sh (or taken from DATABASE_URL/NATS_URL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { serviceNodeFlags } from '@catalog/platform';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.PORT ?? 8080);
const adminToken = process.env.ADMIN_TOKEN ?? `local-admin-${randomBytes(12).toString('hex')}`;
const services = [
  { name: 'catalog', port: 8081 },
  { name: 'asset', port: 8082 },
  { name: 'analysis', port: 8083 },
  { name: 'events', port: 8084 },
  { name: 'library', port: 8085 },
  { name: 'gateway', port },
];
const colors = [36, 35, 33, 32, 34, 31];
const levels: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const children: ChildProcess[] = [];
let stopping = false;

function show(name: string, color: number, line: string): void {
  const tag = `\x1b[${color}m${name.padEnd(8)}\x1b[0m`;
  try {
    const { level, time, msg, service: _s, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const extra = Object.entries(rest)
      .filter(([key]) => !['pid', 'hostname', 'spanId'].includes(key))
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');
    const clock = typeof time === 'string' ? time.slice(11, 23) : '';
    process.stdout.write(`${clock} ${tag} ${(levels[level as number] ?? String(level)).padEnd(5)} ${String(msg ?? '')} ${extra}\n`);
  } catch {
    process.stdout.write(`${tag} ${line}\n`);
  }
}

function startService(name: string, httpPort: number, color: number): ChildProcess {
  const env = {
    ...process.env,
    ADMIN_TOKEN: adminToken,
    [`${name.toUpperCase()}_HTTP_PORT`]: String(httpPort),
    ...(name === 'gateway' ? { PORT: String(port) } : {}),
    OTEL_SERVICE_NAME: name,
  };
  // The production Node flags (decisions 0040, 0041), services from source.
  const child = spawn(process.execPath, [...serviceNodeFlags(name), '--conditions=source', '--import', 'tsx', '--import', '@catalog/platform/telemetry-register', `services/${name}/src/main.ts`], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Each service in a process group of its own: a Ctrl-C reaches it once, forwarded from here.
    detached: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => show(name, color, line));
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      show(name, color, `exited (${signal ?? code}); stopping everything`);
      void stopAll(1);
    }
  });
  children.push(child);
  return child;
}

async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not become ready`);
}

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Reuses the demo organisation of an earlier run (kept in .local/demo.json), issuing a new key. */
async function demoOrganization(): Promise<{ orgId: string; key: string }> {
  const file = join(root, '.local', 'demo.json');
  let orgId: string | undefined;
  if (existsSync(file)) {
    orgId = (JSON.parse(readFileSync(file, 'utf8')) as { orgId?: string }).orgId;
    if (orgId) {
      try {
        await admin('GET', `/admin/v1/organizations/${orgId}`);
      } catch {
        orgId = undefined;
      }
    }
  }
  if (!orgId) {
    orgId = ((await admin('POST', '/admin/v1/organizations', { name: 'Demo Radio', products: ['catalog', 'library'] })) as { id: string }).id;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ orgId }));
  }
  const issued = (await admin('POST', `/admin/v1/organizations/${orgId}/api-keys`, {
    name: `demo ${new Date().toISOString()}`,
    permissions: ['catalog:api', 'catalog:analysis', 'library:api'],
  })) as { key: string };
  return { orgId, key: issued.key };
}

async function stopAll(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  const exits = children.map((child) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve()))));
  for (const child of children) child.kill('SIGTERM');
  const timer = setTimeout(() => children.forEach((child) => child.kill('SIGKILL')), 15_000);
  await Promise.all(exits);
  clearTimeout(timer);
  process.exit(code);
}

process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

services.forEach((service, index) => startService(service.name, service.port, colors[index]!));
try {
  for (const service of services) await waitReady(`http://127.0.0.1:${service.port}/readyz`);
  const demo = await demoOrganization();
  const base = `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      '================================================================',
      ` Catalog service is up at ${base}`,
      ` OpenAPI:       ${base}/api/v1/openapi.json`,
      ` Admin token:   ${adminToken}`,
      ` Demo org:      ${demo.orgId}`,
      ` Demo API key:  ${demo.key}`,
      '',
      ' Try:',
      `   export KEY=${demo.key}`,
      `   curl -s -X POST ${base}/api/v1/catalog/entities -H "Authorization: Bearer $KEY" \\`,
      `        -H 'Content-Type: application/json' -d '{"type":"song","title":"Blue Monday","artist":"New Order"}'`,
      `   curl -s ${base}/api/v1/catalog/entities -H "Authorization: Bearer $KEY"`,
      ' Ctrl-C stops everything.',
      '================================================================',
      '',
    ].join('\n'),
  );
} catch (error) {
  process.stderr.write(`start-up failed: ${(error as Error).message}\n`);
  await stopAll(1);
}
