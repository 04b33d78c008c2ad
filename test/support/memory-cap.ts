import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'yaml';
import { repoRoot, type ServiceName } from '../../scripts/dev/services.js';
import type { ProcessSpec } from '../../scripts/dev/supervisor.js';

/**
 * A service process with the memory its chart gives it, as a container limit caps the pod: in a
 * cgroup v1 memory cgroup of its own (the process joins it before Node starts, so Node sizes its
 * heap from the limit, as in a container; going over it is the kernel's OOM kill), or, where
 * that cgroup cannot be made, with the heap Node would give itself under that limit.
 */

const CGROUP_MEMORY = '/sys/fs/cgroup/memory';
const UNITS: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };

/** The memory limit of `service`'s containers in the Helm chart (`services.<name>.resources.limits.memory`), in bytes. */
export function chartMemoryLimit(service: ServiceName): number {
  const values = parse(readFileSync(join(repoRoot, 'charts', 'catalog-service', 'values.yaml'), 'utf8')) as {
    services: Record<string, { resources: { limits: { memory: string } } }>;
  };
  const memory = values.services[service]!.resources.limits.memory;
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(memory);
  if (!match) throw new Error(`the chart's memory limit of ${service} is ${memory}: expected Ki, Mi or Gi`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

export interface CappedProcess {
  readonly pid: number;
  /** The process, its stdout piped (for `listeningPort`). */
  readonly child: ChildProcess;
  /** How the cap is applied. */
  readonly cap: 'cgroup' | 'heap-flag';
  /** Null while it runs; how it ended otherwise. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | null;
  /** The most memory it held so far (the cgroup's peak usage, or the process's peak resident set). */
  peakBytes(): number;
  /** The kernel's OOM kills in its cgroup (0 without one). */
  oomKills(): number;
  /** Its last lines of output, for a failure message. */
  recentOutput(): string;
  /** SIGTERM, SIGKILL after `graceMs`; then its cgroup is removed. */
  stop(graceMs?: number): Promise<void>;
}

/** A new memory cgroup under this process's own, limited to `limitBytes`; null when the controller is not writable here. */
function memoryCgroup(limitBytes: number): string | null {
  try {
    const own = /^\d+:memory:(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1] ?? '';
    const path = join(CGROUP_MEMORY, own, `capped-${process.pid}-${Date.now()}`);
    mkdirSync(path);
    try {
      writeFileSync(join(path, 'memory.limit_in_bytes'), String(limitBytes));
      return path;
    } catch (error) {
      rmdirSync(path);
      throw error;
    }
  } catch {
    return null;
  }
}

const cgroupValue = (cgroup: string, file: string): string => readFileSync(join(cgroup, file), 'utf8');

function statusBytes(pid: number, field: string): number {
  try {
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kib ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * Starts `spec` capped at `limitBytes`. In a cgroup a shell writes its own pid to the cgroup and
 * then becomes the Node process (exec), so Node starts inside it. Without one, Node gets
 * `--max-heap-size` of two thirds of the limit: what Node 24 gives itself in a cgroup of the
 * catalog's 384 MiB (259 MiB), and the process's peak resident set is what the test reads.
 */
export function startCapped(spec: ProcessSpec, limitBytes: number): CappedProcess {
  const cgroup = memoryCgroup(limitBytes);
  const heapMiB = Math.floor((limitBytes * 2) / 3 / 2 ** 20);
  const [command, args] =
    cgroup === null
      ? [spec.command, [`--max-heap-size=${heapMiB}`, ...spec.args]]
      : ['/bin/sh', ['-c', 'echo $$ > "$0" && exec "$@"', join(cgroup, 'cgroup.procs'), spec.command, ...spec.args]];
  const child: ChildProcess = spawn(command, args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > 30) lines.shift();
    });
  }
  let ended: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = { code, signal };
      resolve();
    }),
  );
  let peak = 0;
  const pid = child.pid!;
  return {
    pid,
    child,
    cap: cgroup === null ? 'heap-flag' : 'cgroup',
    exit: () => ended,
    peakBytes() {
      if (cgroup !== null) return Number(cgroupValue(cgroup, 'memory.max_usage_in_bytes'));
      peak = Math.max(peak, statusBytes(pid, 'VmHWM'));
      return peak;
    },
    oomKills: () => (cgroup === null ? 0 : Number(/^oom_kill (\d+)$/m.exec(cgroupValue(cgroup, 'memory.oom_control'))?.[1] ?? 0)),
    recentOutput: () => lines.join('\n'),
    async stop(graceMs = 15_000) {
      if (ended === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(killer);
      }
      if (cgroup !== null) rmdirSync(cgroup);
    },
  };
}
