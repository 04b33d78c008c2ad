/**
 * Loaded with `node --import @catalog/platform/telemetry-register` before a service's main module,
 * so that the ESM loader hook is in place before `pg`, `http` and `koa` are imported.
 * It installs the OpenTelemetry SDK: W3C trace-context propagation always; span export over OTLP
 * when OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is not "true").
 */
import { register } from 'node:module';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { KoaInstrumentation } from '@opentelemetry/instrumentation-koa';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Keeps spans (and so trace ids in logs and propagated context) without exporting them. */
const keepOnly: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

if (process.env.OTEL_SDK_DISABLED !== 'true') {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME ?? 'catalog-service',
    spanProcessors: [exporting ? new BatchSpanProcessor(new OTLPTraceExporter()) : keepOnly],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' }),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      new KoaInstrumentation(),
    ],
  });
  sdk.start();
  const shutdown = (): void => {
    void sdk.shutdown().catch(() => undefined);
  };
  process.once('beforeExit', shutdown);
}
