/**
 * One terminal for every service: pino's JSON lines shown as `time name LEVEL message key=value`,
 * each process name in a colour of its own, and the supervisor's own lines in the same shape.
 */
import type { SupervisorEvent } from './supervisor.js';

const COLORS = [36, 35, 33, 32, 34, 31];
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has that say nothing in a terminal. */
const HIDDEN_FIELDS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname', 'spanId']);

export type ColorOf = (name: string) => number;

/** A colour per name, in the order names are first seen. */
export function colorPicker(): ColorOf {
  const assigned = new Map<string, number>();
  return (name) => {
    const known = assigned.get(name);
    if (known !== undefined) return known;
    const color = COLORS[assigned.size % COLORS.length]!;
    assigned.set(name, color);
    return color;
  };
}

const tag = (name: string, color: number): string => `\x1b[${color}m${name.padEnd(10)}\x1b[0m`;

/** One line a process wrote: pino JSON made readable, anything else shown as it is. */
export function formatProcessLine(name: string, color: number, line: string): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a log record');
    record = parsed as Record<string, unknown>;
  } catch {
    return `${tag(name, color)} ${line}`;
  }
  const extra = Object.entries(record)
    .filter(([key]) => !HIDDEN_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const clock = typeof record.time === 'string' ? record.time.slice(11, 23) : '';
  const level = LEVELS[record.level as number] ?? String(record.level);
  return `${clock} ${tag(name, color)} ${level.padEnd(5)} ${String(record.msg ?? '')} ${extra}`.trimEnd();
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** What the supervisor did, as a line of the same shape (WARN for a crash, ERROR when it could not start). */
export function formatSupervisorEvent(event: SupervisorEvent, color: number): string {
  const clock = new Date().toISOString().slice(11, 23);
  const line = (level: string, message: string): string => `${clock} ${tag(event.name, color)} ${level.padEnd(5)} ${message}`;
  switch (event.type) {
    case 'started':
      return line('INFO', event.start === 1 ? `started (pid ${event.pid})` : `restarted (pid ${event.pid}, start ${event.start})`);
    case 'spawn-failed':
      return line('ERROR', `could not be started: ${event.error.message}`);
    case 'exited': {
      const how = event.signal ? `killed by ${event.signal}` : `exit code ${event.code}`;
      if (event.restartInMs === null) return line('INFO', `stopped (${how})`);
      return line(
        'WARN',
        `exited (${how}) after ${seconds(event.uptimeMs)}; restarting in ${seconds(event.restartInMs)} (crash ${event.crashes} in a row)`,
      );
    }
  }
}
