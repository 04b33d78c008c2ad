/**
 * Runs a set of processes the way a cluster runs pods: a process that exits on its own is started
 * again after a backoff (doubling per crash in a row, capped, back to the first delay once a run
 * lasted `resetAfterMs`), the others keep running; `stop()` ends them all (SIGTERM, then SIGKILL
 * after a grace). Each process runs in a process group of its own, so a terminal's Ctrl-C reaches
 * it once, through `stop()`, and a signal reaches what it spawned too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { backoffDelay } from '@catalog/platform';

export interface ProcessSpec {
  /** Unique among the supervised processes, e.g. `catalog` or `catalog-2`. */
  name: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface RestartPolicy {
  /** Wait before restarting after a first crash; doubles with every further crash in a row. */
  initialDelayMs: number;
  /** The longest wait between crash and restart. */
  maxDelayMs: number;
  /** A run at least this long was healthy: the crash that ends it waits `initialDelayMs` again. */
  resetAfterMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 500, maxDelayMs: 30_000, resetAfterMs: 60_000 };

export type SupervisorEvent =
  | { type: 'started'; name: string; pid: number; start: number }
  | {
      type: 'exited';
      name: string;
      pid: number | undefined;
      code: number | null;
      signal: NodeJS.Signals | null;
      uptimeMs: number;
      /** Crashes in a row, this one included (0 when the supervisor is stopping). */
      crashes: number;
      /** When it starts again; null while stopping. */
      restartInMs: number | null;
    }
  | { type: 'spawn-failed'; name: string; error: Error };

export interface SupervisorOptions {
  policy?: RestartPolicy;
  /** Each line a process writes (stdout and stderr). */
  onLine?: (name: string, line: string) => void;
  /** Starts, exits and restarts, for the log. */
  onEvent?: (event: SupervisorEvent) => void;
}

export interface Supervisor {
  readonly names: readonly string[];
  /** The pid of the running process, undefined while it waits to be restarted. */
  pid(name: string): number | undefined;
  /** How often the process was started so far (1 after the first start). */
  starts(name: string): number;
  /** Sends `signal` to the process group, as an operator or a fault would; a crash is restarted. */
  kill(name: string, signal: NodeJS.Signals): void;
  /** Stops every process: SIGTERM, SIGKILL after `graceMs`; no restart afterwards. */
  stop(graceMs?: number): Promise<void>;
}

interface Supervised {
  spec: ProcessSpec;
  child: ChildProcess | null;
  startedAt: number;
  starts: number;
  crashesInARow: number;
  restartTimer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

/** How long to wait before the next start, given the crashes in a row so far (1 = first). */
export function restartDelayMs(policy: RestartPolicy, crashesInARow: number): number {
  return backoffDelay({ minMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, jitter: 0 }, crashesInARow);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** What every supervised process shares: the policy, where events and lines go, whether stopping. */
interface Context {
  policy: RestartPolicy;
  emit: (event: SupervisorEvent) => void;
  onLine: (name: string, line: string) => void;
  stopping: boolean;
}

function launch(entry: Supervised, context: Context): void {
  entry.restartTimer = null;
  if (context.stopping) return;
  const { spec } = entry;
  const child = spawn(spec.command, [...spec.args], { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  entry.child = child;
  entry.startedAt = Date.now();
  entry.starts += 1;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => context.onLine(spec.name, line));
  }
  entry.exited = new Promise<void>((resolve) => {
    // 'error' without 'exit' means the process never ran (e.g. the command is missing).
    child.once('error', (error) => {
      if (child.pid !== undefined) return;
      context.emit({ type: 'spawn-failed', name: spec.name, error });
      onExit(entry, child, { code: null, signal: null }, context);
      resolve();
    });
    child.once('exit', (code, signal) => {
      onExit(entry, child, { code, signal }, context);
      resolve();
    });
  });
  if (child.pid !== undefined) context.emit({ type: 'started', name: spec.name, pid: child.pid, start: entry.starts });
}

/** Reports the exit and, unless stopping, schedules the restart after the backoff. */
function onExit(
  entry: Supervised,
  child: ChildProcess,
  how: { code: number | null; signal: NodeJS.Signals | null },
  context: Context,
): void {
  if (entry.child !== child) return;
  entry.child = null;
  const uptimeMs = Date.now() - entry.startedAt;
  const exit = { type: 'exited', name: entry.spec.name, pid: child.pid, ...how, uptimeMs } as const;
  if (context.stopping) {
    context.emit({ ...exit, crashes: 0, restartInMs: null });
    return;
  }
  entry.crashesInARow = uptimeMs >= context.policy.resetAfterMs ? 1 : entry.crashesInARow + 1;
  const restartInMs = restartDelayMs(context.policy, entry.crashesInARow);
  context.emit({ ...exit, crashes: entry.crashesInARow, restartInMs });
  entry.restartTimer = setTimeout(() => launch(entry, context), restartInMs);
}

/** SIGTERM to every process group (pending restarts cancelled), SIGKILL to what is left after `graceMs`. */
async function stopAll(entries: Supervised[], context: Context, graceMs: number): Promise<void> {
  context.stopping = true;
  for (const entry of entries) {
    if (entry.restartTimer) clearTimeout(entry.restartTimer);
    entry.restartTimer = null;
    if (entry.child) signalGroup(entry.child, 'SIGTERM');
  }
  const killer = setTimeout(() => entries.forEach((entry) => entry.child && signalGroup(entry.child, 'SIGKILL')), graceMs);
  await Promise.all(entries.map((entry) => entry.exited));
  clearTimeout(killer);
}

export function superviseProcesses(specs: readonly ProcessSpec[], options: SupervisorOptions = {}): Supervisor {
  const context: Context = {
    policy: options.policy ?? DEFAULT_RESTART_POLICY,
    emit: options.onEvent ?? (() => undefined),
    onLine: options.onLine ?? (() => undefined),
    stopping: false,
  };
  const processes = new Map<string, Supervised>();
  for (const spec of specs) {
    if (processes.has(spec.name)) throw new Error(`two processes named ${spec.name}`);
    const entry: Supervised = {
      spec,
      child: null,
      startedAt: 0,
      starts: 0,
      crashesInARow: 0,
      restartTimer: null,
      exited: Promise.resolve(),
    };
    processes.set(spec.name, entry);
    launch(entry, context);
  }
  const entryOf = (name: string): Supervised => {
    const entry = processes.get(name);
    if (!entry) throw new Error(`no process named ${name}`);
    return entry;
  };
  return {
    names: specs.map((spec) => spec.name),
    pid: (name) => entryOf(name).child?.pid,
    starts: (name) => entryOf(name).starts,
    kill(name, signal) {
      const { child } = entryOf(name);
      if (child) signalGroup(child, signal);
    },
    stop: (graceMs = 15_000) => stopAll([...processes.values()], context, graceMs),
  };
}
