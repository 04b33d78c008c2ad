import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@catalog/platform';

/** A logger for tests: silent unless TEST_LOG_LEVEL is set. */
export function testLogger(service = 'test'): Logger {
  return createLogger({ service, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** A logger that keeps what it writes: `lines()` are its log lines so far, parsed. */
export function capturingLogger(service = 'test'): { logger: Logger; lines(): Array<Record<string, any>> } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    logger: createLogger({ service, destination: sink }),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, any>),
  };
}
