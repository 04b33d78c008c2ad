import { context, propagation, trace, SpanKind, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';

export const tracer = trace.getTracer('catalog-service');

/** W3C trace context in and out of a plain header map (NATS headers, HTTP headers). */
export function injectTraceHeaders(target: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  propagation.inject(ctx, target, {
    set(carrier, key, value) {
      carrier[key] = value;
    },
  });
  return target;
}

export function extractTraceContext(lookup: (key: string) => string | undefined): Context {
  return propagation.extract(
    context.active(),
    {},
    {
      keys: () => ['traceparent', 'tracestate'],
      get: (_carrier, key) => lookup(key),
    },
  );
}

/** Runs `fn` in a new span, recording failures; the span ends when `fn` settles. */
export async function withSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Record<string, string | number | boolean>; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

export { SpanKind };
