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
  /** Stops both and removes their data. */
  remove(): Promise<void>;
}

export async function startOwnInfrastructure(): Promise<OwnInfrastructure> {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-chaos-'));
  chmodSync(dir, 0o755); // run as root, Postgres runs as a system user that must reach its data
  const pgDir = join(dir, 'pg');
  const natsDir = join(dir, 'nats');
  const [pgPort, natsPort] = [await freePort(), await freePort()];
  const startPostgres = () => infra('start_postgres', [pgDir, String(pgPort)], { PG_FAST: '1' });
  const startNats = () => infra('start_nats', [natsDir, String(natsPort)]);
  const natsPid = () => Number(readFileSync(join(natsDir, 'nats.pid'), 'utf8').trim());
  const remove = async () => {
    await infra('stop_nats', [natsDir]).catch(() => undefined);
    await infra('stop_postgres', [pgDir]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await startPostgres();
    await startNats();
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    postgres: {
      url: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
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
