import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/** Paths whose values never reach a log line: credentials, keys, secrets, signatures. */
const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.authorization',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'token',
  '*.token',
  'signature',
  '*.signature',
  'url',
  '*.url',
];

export interface LoggerSettings {
  service: string;
  level?: string;
  destination?: pino.DestinationStream;
}

/**
 * A pino logger that stamps every line with the service name and, when a span is active, the
 * OpenTelemetry trace and span ids, so log lines and traces join up.
 */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level ?? 'info',
    base: { service: settings.service },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const context = span.spanContext();
      if (!isSpanContextValid(context)) return {};
      return { traceId: context.traceId, spanId: context.spanId };
    },
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/** Removes the query string (which may hold a URL signature) from a URL or path before logging. */
export function pathOnly(url: string): string {
  const index = url.indexOf('?');
  return index === -1 ? url : url.slice(0, index);
}
