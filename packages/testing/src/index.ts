/** Test fixtures of the workspaces' tests and the benchmarks (never a runtime dependency). */
export { createTestDatabase, testInfrastructure, uniqueNatsPrefix, type TestDatabase } from './infrastructure.js';
export { capturingLogger, testLogger } from './logging.js';
export { eventually } from './eventually.js';
export { natsServerBinary, startOwnNatsServer, type OwnNatsServer } from './nats-server.js';
export * from './service-probe.js';
export { freePort } from './free-port.js';
export { publishEvent, untilConsumerSettled } from './events-stream.js';
export { startOtlpCollector, type OtlpCollector } from './otlp-collector.js';
export { apiClient, type ApiClient, type ApiRequestOptions, type ApiResponse, type TestTenant } from './api-client.js';
export { sineWav, writeSineWav, type SineWavOptions } from './wav.js';
export * from './music/index.js';
