import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { SERVICE_NODE_FLAGS, serviceNodeFlags } from '@catalog/platform';
import { createWriteStream, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chartMemoryLimit } from '../../test/support/memory-cap.js';
import type { ServiceName } from '../../scripts/dev/services.js';
import { memoryCgroup, type MemoryCgroup } from './memory-cgroup.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface BenchProcess {
  name: string;
  child: ChildProcess;
  /** Peak resident set size so far (VmHWM), in MiB: since start, or since `resetPeakRss`. */
  peakRssMiB(): number;
  /** Starts the peak over from the current RSS (Linux: `5` to /proc/<pid>/clear_refs); false if refused. */
  resetPeakRss(): boolean;
  /** The memory cgroup it runs in (a service under its chart limit), if any. */
  cgroup: MemoryCgroup | null;
  nodeFlags: readonly string[];
  stop(): Promise<void>;
}

/** The children started so far, ended (and their cgroups removed) if the benchmark exits without stopping them (it threw). */
const running = new Set<{ child: ChildProcess; cgroup: MemoryCgroup | null }>();
let exitCleanup = false;
function installExitCleanup(): void {
  if (exitCleanup) return;
  exitCleanup = true;
  process.on('exit', () => {
    for (const { child } of running) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const { cgroup } of running) cgroup?.remove();
  });
}

/**
 * Starts a Node program as a child process (built output: production mode, the production Node
 * flags), logs discarded unless BENCH_LOG_DIR names a directory (then `<name>.log` there).
 * With BENCH_CPU_PROF_DIR set, each child writes a V8 CPU profile there when it exits;
 * BENCH_NODE_ARGS adds Node options to every child (e.g. `--max-semi-space-size=32`).
 */
export function startProcess(
  name: string,
  script: string,
  env: Record<string, string>,
  args: string[] = [],
  nodeFlags: readonly string[] = SERVICE_NODE_FLAGS,
  cgroup: MemoryCgroup | null = null,
): BenchProcess {
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : [];
  const argv = [...nodeFlags, ...profile, ...extra, ...args, script];
  const { command, args: commandArgs } = cgroup ? cgroup.wrap(process.execPath, argv) : { command: process.execPath, args: argv };
  const child = spawn(command, commandArgs, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', process.env.BENCH_LOG_DIR ? 'pipe' : 'ignore', 'pipe'],
  });
  if (process.env.BENCH_LOG_DIR) child.stdout!.pipe(createWriteStream(join(process.env.BENCH_LOG_DIR, `${name}.log`)));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  running.add({ child, cgroup });
  installExitCleanup();
  child.on('exit', (code, signal) => {
    if (code && code !== 0 && code !== 143) process.stderr.write(`[${name}] exited ${code}\n${stderr}\n`);
    // Nothing here sends SIGKILL: in a memory cgroup it is the kernel's OOM kill.
    if (signal === 'SIGKILL')
      process.stderr.write(
        `[${name}] killed (SIGKILL${cgroup ? `, OOM kills in its cgroup: ${cgroup.counters().oomKills}` : ''})\n${stderr}\n`,
      );
  });
  return {
    name,
    child,
    cgroup,
    nodeFlags,
    resetPeakRss() {
      try {
        writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
        return true;
      } catch {
        return false;
      }
    },
    peakRssMiB() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const match = /VmHWM:\s+(\d+) kB/.exec(status);
        return match ? Math.round(Number(match[1]) / 1024) : 0;
      } catch {
        return 0;
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }).then(() => cgroup?.remove()),
  };
}

/**
 * The memory cgroup a service runs in during a benchmark: its chart limit (as its pod has), unless
 * BENCH_MEMORY_LIMIT=none; null where the cgroup v1 memory controller is not writable (the peaks
 * are then those of an unlimited process, which V8, sizing its heap from the machine's memory,
 * lets grow far beyond what it keeps alive: results record which it was).
 */
function serviceCgroup(name: string): MemoryCgroup | null {
  if (process.env.BENCH_MEMORY_LIMIT === 'none') return null;
  try {
    return memoryCgroup(`bench-${process.pid}-${name}-${randomBytes(3).toString('hex')}`, chartMemoryLimit(name as ServiceName));
  } catch {
    return null;
  }
}

/**
 * How the services of a run were limited: each one's chart limit (MiB) when in a cgroup, its OOM
 * kills there and its Node flags (the deploy test holds these to the chart: test/deploy/memory-budget.test.ts).
 */
export function memoryLimits(
  processes: readonly BenchProcess[],
): Record<string, { limitMiB: number | null; oomKills: number; nodeFlags: readonly string[] }> {
  return Object.fromEntries(
    processes.map((p) => [
      p.name,
      {
        limitMiB: p.cgroup ? Math.round(p.cgroup.limitBytes / 2 ** 20) : null,
        oomKills: p.cgroup ? p.cgroup.counters().oomKills : 0,
        nodeFlags: p.nodeFlags,
      },
    ]),
  );
}

export async function waitReady(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

/** CPU time (user + system) a process has used so far, in ms (Linux: /proc/<pid>/stat, clock ticks of 10 ms); 0 once it is gone. */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** CPU time used so far by the running processes whose command is `comm` (`postgres`, `nats-server`), in ms. */
export function programCpuMs(comm: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm) total += processCpuMs(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

/**
 * Bytes read from and written to storage so far by the running processes whose command is `comm`
 * (Linux: /proc/<pid>/io `read_bytes`, `write_bytes`; page-cache hits are not reads). Processes
 * that ended meanwhile (a Postgres backend of a closed connection) no longer count.
 */
export function programIo(comm: string): { readBytes: number; writeBytes: number } {
  let readBytes = 0;
  let writeBytes = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== comm) continue;
      const io = readFileSync(`/proc/${pid}/io`, 'utf8');
      readBytes += Number(/^read_bytes: (\d+)$/m.exec(io)?.[1] ?? 0);
      writeBytes += Number(/^write_bytes: (\d+)$/m.exec(io)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return { readBytes, writeBytes };
}

export function machine(): { cpus: number; model: string; memoryGiB: number; node: string } {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1] ?? 'unknown';
  const cpus = (cpuinfo.match(/^processor\s*:/gm) ?? []).length;
  const mem = Number(/MemTotal:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
  return { cpus, model, memoryGiB: Math.round(mem / 1024 / 1024), node: process.version };
}

/**
 * Fails when something already listens on `port`: a service left over from an earlier run would
 * answer `readyz` in place of the one about to start, and the run would measure it (once, all of a
 * lag run's writes failed against a gateway of a dropped database that used no CPU).
 */
async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' ? new Error(`port ${port} is in use: a service left over from an earlier run? (ss -ltnp)`) : error,
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/**
 * Starts service `name` from its built output listening on `port` (PORT for the gateway,
 * `<NAME>_HTTP_PORT` for the others), under its chart memory limit (`serviceCgroup`), and waits
 * until it is ready.
 */
export async function startService(name: string, env: Record<string, string>, port: number): Promise<BenchProcess> {
  await assertPortFree(port);
  const portVariable = name === 'gateway' ? 'PORT' : `${name.toUpperCase()}_HTTP_PORT`;
  // As the chart starts it: the service's Node flags and the telemetry register (which, with the
  // chart's default OTEL_SDK_DISABLED=true that benchEnv sets, loads nothing).
  const service = startProcess(
    name,
    `services/${name}/dist/main.js`,
    { ...env, [portVariable]: String(port) },
    ['--import', '@catalog/platform/telemetry-register'],
    serviceNodeFlags(name),
    serviceCgroup(name),
  );
  try {
    await waitReady(`http://127.0.0.1:${port}/readyz`);
    if (service.child.exitCode !== null || service.child.signalCode !== null) throw new Error(`${name} exited while starting`);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}
