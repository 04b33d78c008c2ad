import { readConfig } from './config.js';
import { jsonLog } from './log.js';
import { runConnector } from './run.js';

const log = jsonLog();
const stop = new AbortController();
for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => stop.abort());
try {
  await runConnector(readConfig(process.env), log, stop.signal);
} catch (error) {
  log.error('stopped', { error: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
}
