/**
 * Loaded with `node --import @catalog/platform/telemetry-register` before a service's main module,
 * so that the ESM loader hook is in place before `pg`, `http` and `koa` are imported.
 * With OTEL_SDK_DISABLED=true (the Helm chart's default, when no OTLP endpoint is given) it loads
 * nothing at all: no tracer, no instrumentation, no loader hook, so the process keeps the footprint
 * of the service alone. Otherwise it installs a Node tracer provider with W3C trace-context
 * propagation and the http, pg and Koa instrumentations, exporting spans over OTLP when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set and keeping them only for log correlation when it is not.
 * Every OpenTelemetry module is imported on demand, so what is not used is never loaded.
 */
import { register } from 'node:module';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';

/** Keeps spans (and so trace ids in logs and propagated context) without exporting them. */
const keepOnly: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

async function startTelemetry(): Promise<void> {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { resourceFromAttributes },
    { registerInstrumentations },
    { HttpInstrumentation },
    { PgInstrumentation },
    { KoaInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-koa'),
  ]);
  let processor = keepOnly;
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    // The OTLP exporter is loaded only when spans are exported.
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processor = new BatchSpanProcessor(new OTLPTraceExporter());
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'catalog-service' }),
    spanProcessors: [processor],
  });
  // Global tracer provider, AsyncLocalStorage context manager, W3C trace-context propagator.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' }),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      new KoaInstrumentation(),
    ],
  });
  process.once('beforeExit', () => {
    void provider.shutdown().catch(() => undefined);
  });
}

if (process.env.OTEL_SDK_DISABLED !== 'true') await startTelemetry();
