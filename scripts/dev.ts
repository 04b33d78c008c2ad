/**
 * `npm start`: runs the whole system locally. Starts the six services as separate processes (each
 * migrates its schema, registers on NATS and serves /readyz) under a supervisor that restarts a
 * crashed one with backoff while the others keep running (scripts/dev/supervisor.ts), shows their
 * logs in one terminal, creates a demo organisation with an API key and prints it, and stops
 * everything on Ctrl-C. Postgres, NATS and ffmpeg come from scripts/start.sh beforehand.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DEMO_CREDITS, demoOrganization, type DemoOrganization } from './dev/demo-organization.js';
import { colorPicker, formatProcessLine, formatSupervisorEvent } from './dev/log-format.js';
import { untilReady } from './dev/readiness.js';
import { httpPortVariable, repoRoot, SERVICE_NAMES, serviceEnvironment, serviceProcess, type ServiceName } from './dev/services.js';
import { superviseProcesses, type SupervisorEvent } from './dev/supervisor.js';

/** How long start-up may take, restarts included, before `npm start` gives up. */
const START_TIMEOUT_MS = 120_000;

const adminToken = process.env.ADMIN_TOKEN ?? `local-admin-${randomBytes(12).toString('hex')}`;
const defaultPorts: Record<ServiceName, number> = {
  gateway: 8080,
  catalog: 8081,
  asset: 8082,
  analysis: 8083,
  events: 8084,
  library: 8085,
};
/** PORT (gateway) and `<SERVICE>_HTTP_PORT`, as the services read them, or the defaults. */
const ports = Object.fromEntries(
  SERVICE_NAMES.map((service) => [service, Number(process.env[httpPortVariable(service)] ?? defaultPorts[service])]),
) as Record<ServiceName, number>;
const gatewayPort = ports.gateway;
/** Where the demo organisation of earlier runs is remembered. */
const stateDir = process.env.LOCAL_STATE_DIR ?? join(repoRoot, '.local');
const settings = { shared: { ...process.env, ADMIN_TOKEN: adminToken } };

const colorOf = colorPicker();
const lastExit = new Map<string, SupervisorEvent & { type: 'exited' }>();
const supervisor = superviseProcesses(
  SERVICE_NAMES.map((service) => serviceProcess(service, service, serviceEnvironment(service, ports[service], settings))),
  {
    onLine: (name, line) => process.stdout.write(`${formatProcessLine(name, colorOf(name), line)}\n`),
    onEvent: (event) => {
      if (event.type === 'exited') lastExit.set(event.name, event);
      process.stdout.write(`${formatSupervisorEvent(event, colorOf(event.name))}\n`);
    },
  },
);

let stopping = false;
async function stopAll(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await supervisor.stop(15_000);
  process.exit(code);
}
process.on('exit', () => supervisor.names.forEach((name) => supervisor.kill(name, 'SIGKILL')));
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

/** Waits for every service; the error names the one that did not come up and how it last ended. */
async function untilAllReady(): Promise<void> {
  await Promise.all(
    SERVICE_NAMES.map((service) =>
      untilReady(`http://127.0.0.1:${ports[service]}/readyz`, START_TIMEOUT_MS).catch((error: Error) => {
        const exit = lastExit.get(service);
        const how = exit
          ? `; started ${supervisor.starts(service)} times, last ${exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`}`
          : '';
        throw new Error(`${service}: ${error.message}${how}`);
      }),
    ),
  );
}

function banner(demo: DemoOrganization): string {
  const base = `http://localhost:${gatewayPort}`;
  return [
    '',
    '================================================================',
    ` Catalog service is up at ${base}`,
    ` OpenAPI:       ${base}/api/v1/openapi.json (rendered: ${base}/docs)`,
    ` Library page:  ${base}/app (sign in with the demo API key)`,
    ` Admin token:   ${adminToken}`,
    ` Demo org:      ${demo.orgId}`,
    ` Demo API key:  ${demo.key}   (catalog, analysis and library permissions)`,
    ` Demo credits:  ${DEMO_CREDITS}, granted on the first start (GET /api/v1/catalog/credits: the balance)`,
    '',
    ' Try:',
    `   export KEY=${demo.key}`,
    `   curl -s -X POST ${base}/api/v1/catalog/entities -H "Authorization: Bearer $KEY" \\`,
    `        -H 'Content-Type: application/json' -d '{"type":"song","title":"Blue Monday","artist":"New Order"}'`,
    `   curl -s ${base}/api/v1/catalog/entities -H "Authorization: Bearer $KEY"`,
    `   npx catalogctl login --url ${base} <<< "$KEY" && npx catalogctl entities ls`,
    ' An analysis end to end: README.md, "Try it".',
    ' A service that crashes is restarted. Ctrl-C stops everything.',
    '================================================================',
    '',
  ].join('\n');
}

try {
  await untilAllReady();
  const demo = await demoOrganization({ baseUrl: `http://127.0.0.1:${gatewayPort}`, adminToken }, join(stateDir, 'demo.json'));
  process.stdout.write(banner(demo));
} catch (error) {
  process.stderr.write(`start-up failed: ${(error as Error).message}\n`);
  await stopAll(1);
}
