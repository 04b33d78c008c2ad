import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, launchNatsServer, natsServerBinary } from '@catalog/testing';

/** A JetStream cluster of `size` nats-servers on loopback, in a temporary directory, without authorization. */
export interface NatsCluster {
  /** The client URLs, comma-separated (as `NATS_URL`). */
  url: string;
  stop(): Promise<void>;
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
  const started = await Promise.allSettled(configs.map((config) => launchNatsServer(binary, ['-c', config])));
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
