import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { busPermissions, LOCAL_NATS_USERS, renderNatsAuthorization } from '@catalog/contracts';
import { natsUsers, testCredentials } from './local-credentials.js';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A nats-server of a test's own (JetStream on, loopback, a temporary store, the users and
 * permissions of the test server), for tests that stop and restart the server. The binary is `NATS_SERVER_BIN`, `nats-server` on PATH, or the one the
 * project's scripts install under `~/.cache/catalog-tools/bin`.
 */
export interface OwnNatsServer {
  url: string;
  port: number;
  storeDir: string;
  /** Kills the server process (SIGKILL by default: no clean shutdown). */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port with the same store. */
  restart(): Promise<void>;
  /** Stops it and removes the store. */
  stop(): Promise<void>;
}

/** The nats-server binary: `NATS_SERVER_BIN`, `nats-server` on PATH, or the one the project's scripts cache. */
export function natsServerBinary(): string {
  const fromEnv = process.env.NATS_SERVER_BIN;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const onPath = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  const cached = join(homedir(), '.cache', 'catalog-tools', 'bin', 'nats-server');
  if (existsSync(cached)) return cached;
  throw new Error('nats-server not found: set NATS_SERVER_BIN or put nats-server on PATH');
}

/** The authorization of the shared test server (decision 0055), when it has one, as a config file in `dir`. */
function configArguments(dir: string): string[] {
  if (!natsUsers()) return [];
  const credentials = testCredentials();
  const file = `${dir}/nats.conf`;
  writeFileSync(file, renderNatsAuthorization({ literal: credentials.natsPassword }, [...busPermissions(), ...LOCAL_NATS_USERS]), {
    mode: 0o600,
  });
  return ['-c', file];
}

/** Starts nats-server with `args` and resolves once it says it is ready (20 s at most). */
export function launchNatsServer(binary: string, args: readonly string[]): Promise<ChildProcess & { output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server did not become ready:\n${output}`));
    }, 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      if (output.includes('Server is ready')) {
        clearTimeout(timer);
        resolve(Object.assign(child, { output }));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (${code}) before it was ready:\n${output}`));
    });
  });
}

/** The client port a ready nats-server said it listens on. */
function clientPortOf(child: ChildProcess & { output: string }): number {
  const match = /Listening for client connections on [^\s]*:(\d+)/.exec(child.output);
  if (!match) throw new Error(`nats-server did not say its client port:\n${child.output}`);
  return Number(match[1]);
}

/** Port -1: the server binds a free port itself (no other process can take it first) and logs it. */
function launch(binary: string, port: number, storeDir: string): Promise<ChildProcess & { output: string }> {
  const args = [...configArguments(storeDir), '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', `${storeDir}/jetstream`];
  return launchNatsServer(binary, args);
}

export async function startOwnNatsServer(): Promise<OwnNatsServer> {
  const binary = natsServerBinary();
  const storeDir = mkdtempSync(join(tmpdir(), 'catalog-nats-'));
  const first = await launch(binary, -1, storeDir);
  const port = clientPortOf(first);
  let child: ChildProcess | null = first;
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    kill,
    // Again on the port it chose first, so that clients reconnect to it (free since its kill).
    async restart() {
      await kill();
      child = await launch(binary, port, storeDir);
    },
    async stop() {
      await kill('SIGTERM');
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
