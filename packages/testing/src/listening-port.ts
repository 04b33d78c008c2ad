import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * The port a service process bound, from its `http listening` log line (the platform's runtime
 * logs it at info with the port): start the process with its port variable 0, LOG_LEVEL info and
 * stdout piped, then read the port back. A port chosen by the listener itself cannot be taken by
 * another process first, as one picked free beforehand can. The rest of stdout is read and dropped.
 */
export function listeningPort(child: ChildProcess, timeoutMs = 60_000): Promise<number> {
  const stdout = child.stdout;
  if (!stdout) return Promise.reject(new Error('listeningPort needs the process started with stdout piped'));
  return new Promise((resolve, reject) => {
    const recent: string[] = [];
    const lines = createInterface({ input: stdout });
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${why}; its last lines:\n${recent.join('\n')}`));
    };
    const timer = setTimeout(() => fail(`no "http listening" line within ${timeoutMs} ms`), timeoutMs);
    const exited = (code: number | null, signal: string | null) => fail(`the process exited (${signal ?? code}) before it listened`);
    child.once('exit', exited);
    lines.on('line', (line) => {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      const port = portOf(line);
      if (port === undefined) return;
      clearTimeout(timer);
      child.off('exit', exited);
      resolve(port);
    });
  });
}

function portOf(line: string): number | undefined {
  if (!line.includes('http listening')) return undefined;
  try {
    const record = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return record.msg === 'http listening' && typeof record.port === 'number' ? record.port : undefined;
  } catch {
    return undefined; // not a JSON log record
  }
}
