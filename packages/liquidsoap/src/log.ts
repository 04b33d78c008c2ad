/** One JSON line per event on stdout (a service manager's journal keeps them); never the key. */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function jsonLog(write: (line: string) => void = (line) => process.stdout.write(line)): Log {
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  return { info: at('info'), warn: at('warn'), error: at('error') };
}
