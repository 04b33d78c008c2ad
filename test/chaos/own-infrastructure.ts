import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sleep } from '@catalog/platform';
import { freePort } from '@catalog/testing';
import { repoRoot } from '../../scripts/dev/services.js';
import { isRunning } from '../support/processes.js';

/**
 * A Postgres cluster and a nats-server of the fault test's own, started and stopped with the
 * functions of scripts/lib/infra.sh (as `npm start` and `npm test` start theirs) on free loopback
 * ports, so that killing them disturbs no other test. Their data lives in one temporary folder.
 */
const run = promisify(execFile);
const INFRA = join(repoRoot, 'scripts', 'lib', 'infra.sh');

/** Runs one function of infra.sh; its log lines are kept for the error message when it fails. */
async function infra(fn: string, args: string[], extraEnv: Record<string, string> = {}): Promise<void> {
  const { DATABASE_URL: _db, NATS_URL: _nats, NODE_OPTIONS: _node, ...env } = process.env;
  try {
    await run('bash', ['-c', 'source "$0"; "$@"', INFRA, fn, ...args], { env: { ...env, ...extraEnv }, timeout: 120_000 });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${fn} ${args.join(' ')} failed: ${(error as Error).message}\n${stderr ?? ''}`);
  }
}

/** The `export NAME='value'` lines of `scripts/local-servers.ts env`, as start.sh evaluates them. */
async function localServiceEnvironment(credentialsFile: string, adminUrl: string): Promise<Record<string, string>> {
  const { DATABASE_URL: _db, NODE_OPTIONS: _node, ...env } = process.env;
  const script = join(repoRoot, 'scripts', 'local-servers.ts');
  const { stdout } = await run(process.execPath, ['--conditions=source', '--import', 'tsx', script, 'env', credentialsFile], {
    cwd: repoRoot,
    env: { ...env, DATABASE_URL: adminUrl },
    timeout: 60_000,
  });
  const entries = [...stdout.matchAll(/^export ([A-Z0-9_]+)='((?:[^']|'\\'')*)'$/gm)].map(([, name, value]) => [
    name!,
    value!.replaceAll(`'\\''`, "'"),
  ]);
  return Object.fromEntries(entries);
}

export interface OwnPostgres {
  url: string;
  /** pg_ctl stop -m fast (every session ends), then the same cluster starts again on the same port. */
  restart(): Promise<void>;
}

export interface OwnNats {
  url: string;
  /** The nats-server's pid now. */
  pid(): number;
  /** SIGKILL: no clean shutdown, no flush. */
  killHard(): Promise<void>;
  /** Starts it again on the same port with the same JetStream store. */
  start(): Promise<void>;
}

export interface OwnInfrastructure {
  postgres: OwnPostgres;
  nats: OwnNats;
  /**
   * What `npm start` gives its services for these servers (scripts/start.sh): each service's own
   * database role and NATS user, the schema owner, the call context secret (decisions 0055-0057).
   */
  serviceEnvironment: Record<string, string>;
  /** Stops both and removes their data. */
  remove(): Promise<void>;
}

export async function startOwnInfrastructure(): Promise<OwnInfrastructure> {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-chaos-'));
  chmodSync(dir, 0o755); // run as root, Postgres runs as a system user that must reach its data
  const pgDir = join(dir, 'pg');
  const natsDir = join(dir, 'nats');
  const [pgPort, natsPort] = [await freePort(), await freePort()];
  const credentials = { CATALOG_CREDENTIALS_FILE: join(dir, 'credentials.json') };
  const adminUrl = `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
  const startPostgres = () => infra('start_postgres', [pgDir, String(pgPort)], { PG_FAST: '1' });
  const startNats = () => infra('start_nats', [natsDir, String(natsPort)], credentials);
  const natsPid = () => Number(readFileSync(join(natsDir, 'nats.pid'), 'utf8').trim());
  const remove = async () => {
    await infra('stop_nats', [natsDir]).catch(() => undefined);
    await infra('stop_postgres', [pgDir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  let serviceEnvironment: Record<string, string>;
  try {
    await startPostgres();
    await infra('ensure_local_credentials', [credentials.CATALOG_CREDENTIALS_FILE]);
    await infra('setup_database_roles', [], { ...credentials, DATABASE_URL: adminUrl });
    await startNats();
    serviceEnvironment = await localServiceEnvironment(credentials.CATALOG_CREDENTIALS_FILE, adminUrl);
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    serviceEnvironment,
    postgres: {
      url: adminUrl,
      async restart() {
        await infra('stop_postgres', [pgDir]);
        await startPostgres();
      },
    },
    nats: {
      url: `nats://127.0.0.1:${natsPort}`,
      pid: natsPid,
      async killHard() {
        const pid = natsPid();
        process.kill(pid, 'SIGKILL');
        const deadline = Date.now() + 10_000;
        while (isRunning(pid)) {
          if (Date.now() > deadline) throw new Error(`nats-server ${pid} still runs 10 s after SIGKILL`);
          await sleep(20);
        }
      },
      start: startNats,
    },
    remove,
  };
}
