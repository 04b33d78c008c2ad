import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@catalog/testing';

/** A JetStream cluster of `size` nats-servers on loopback, in a temporary directory, without authorization. */
export interface NatsCluster {
  /** The client URLs, comma-separated (as `NATS_URL`). */
  url: string;
  stop(): Promise<void>;
}

function natsServerBinary(): string {
  const fromEnv = process.env.NATS_SERVER_BIN;
  if (fromEnv && existsSync(fromEnv)) return fromEnv;
  const onPath = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).stdout.trim();
  return onPath || join(homedir(), '.cache', 'catalog-tools', 'bin', 'nats-server');
}

/** Starts one server and resolves once it says it is ready (20 s at most). */
function launch(binary: string, config: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server did not become ready:\n${output}`));
    }, 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      if (output.includes('Server is ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (${code}) before it was ready:\n${output}`));
    });
  });
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** Starts the servers (a cluster of one is a plain JetStream server); the caller waits for a meta leader. */
export async function startNatsCluster(size: number): Promise<NatsCluster> {
  const binary = natsServerBinary();
  const dir = mkdtempSync(join(tmpdir(), 'catalog-nats-cluster-'));
  const ports: number[] = [];
  const routes: number[] = [];
  for (let i = 0; i < size; i += 1) {
    ports.push(await freePort());
    routes.push(await freePort());
  }
  const configs = ports.map((port, i) => {
    const cluster =
      size > 1
        ? `cluster { name: c, listen: 127.0.0.1:${routes[i]}, routes: [${routes.map((r) => `nats-route://127.0.0.1:${r}`).join(', ')}] }`
        : '';
    const file = join(dir, `n${i}.conf`);
    writeFileSync(file, `server_name: n${i}\nlisten: 127.0.0.1:${port}\njetstream { store_dir: "${join(dir, `n${i}`)}" }\n${cluster}\n`);
    return file;
  });
  const started = await Promise.allSettled(configs.map((config) => launch(binary, config)));
  const children = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  const stop = async (): Promise<void> => {
    await stopAll(children);
    rmSync(dir, { recursive: true, force: true });
  };
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { url: ports.map((port) => `nats://127.0.0.1:${port}`).join(','), stop };
}
