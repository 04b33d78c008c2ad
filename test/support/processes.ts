import { readFileSync } from 'node:fs';

/** The process runs and is not a zombie (Linux /proc). */
export function isRunning(pid: number): boolean {
  try {
    const state = /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
