import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A cgroup v1 memory cgroup limited as the chart limits a service's pod: every process started
 * through `wrap` (a supervisor's restarts too) joins it before Node starts, so Node sizes its heap
 * from the limit as it does in a container, and going over it is the kernel's OOM kill.
 */
const CGROUP_MEMORY = '/sys/fs/cgroup/memory';

export interface MemoryCgroup {
  readonly path: string;
  readonly limitBytes: number;
  /** The command and arguments that start `command args` inside this cgroup (a shell joins it, then execs). */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  counters(): CgroupCounters;
  remove(): void;
}

export interface CgroupCounters {
  usageBytes: number;
  maxUsageBytes: number;
  /** How often usage reached the limit (the kernel then reclaimed page cache, or killed). */
  failcnt: number;
  /** The kernel's OOM kills in this cgroup (memory.oom_control). */
  oomKills: number;
  /** Page cache charged to the cgroup (memory.stat `total_cache`), which the kernel reclaims before it kills. */
  cacheBytes: number;
  /** Anonymous memory (memory.stat `total_rss`): what only a kill gives back. */
  rssBytes: number;
}

const read = (path: string, file: string): string => readFileSync(join(path, file), 'utf8');
const stat = (text: string, field: string): number => Number(new RegExp(`^${field} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

/** A new cgroup `name` under this process's own; throws when the memory controller is not writable here. */
export function memoryCgroup(name: string, limitBytes: number): MemoryCgroup {
  const own = /^\d+:memory:(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1] ?? '';
  const path = join(CGROUP_MEMORY, own, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'memory.limit_in_bytes'), String(limitBytes));
  return {
    path,
    limitBytes,
    wrap: (command, args) => ({
      command: '/bin/sh',
      args: ['-c', 'echo $$ > "$0" && exec "$@"', join(path, 'cgroup.procs'), command, ...args],
    }),
    counters() {
      const memoryStat = read(path, 'memory.stat');
      return {
        usageBytes: Number(read(path, 'memory.usage_in_bytes')),
        maxUsageBytes: Number(read(path, 'memory.max_usage_in_bytes')),
        failcnt: Number(read(path, 'memory.failcnt')),
        oomKills: stat(read(path, 'memory.oom_control'), 'oom_kill'),
        cacheBytes: stat(memoryStat, 'total_cache'),
        rssBytes: stat(memoryStat, 'total_rss'),
      };
    },
    remove() {
      // A cgroup with tasks cannot be removed (EBUSY): its processes are ending, so try again briefly.
      for (let attempt = 0; attempt < 50; attempt += 1) {
        try {
          rmdirSync(path);
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        }
      }
    },
  };
}
