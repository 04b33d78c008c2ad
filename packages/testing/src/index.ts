/** Test fixtures of the workspaces' tests and the benchmarks (never a runtime dependency). */
export {
  createTestDatabase,
  ensureTestRoles,
  testInfrastructure,
  uniqueNatsPrefix,
  type TestDatabase,
  type TestDatabaseOptions,
} from './infrastructure.js';
export { startOwnPostgres, type OwnPostgres } from './own-postgres.js';
export { ensureLocalCredentials, natsUsers, readLocalCredentials, testCredentials, type LocalCredentials } from './local-credentials.js';
export { natsCredentialsOf, serviceEnvironment, testBus, testCallContext } from './service-environment.js';
export { capturingLogger, testLogger } from './logging.js';
export { eventually, untilCountReaches } from './eventually.js';
export { launchNatsServer, natsServerBinary, startOwnNatsServer, type OwnNatsServer } from './nats-server.js';
export * from './service-probe.js';
export { freePort } from './free-port.js';
export { listeningPort } from './listening-port.js';
export { publishEvent, readDeadLetters, testBusEvent, untilBusSettled, untilConsumerSettled, type ParkedMessage } from './events-stream.js';
export { closeEventsTestBus, openEventsTestBus, thingConsumerSettings, type EventsTestBus } from './events-test-bus.js';
export { startOtlpCollector, type OtlpCollector } from './otlp-collector.js';
export { apiClient, type ApiClient, type ApiRequestOptions, type ApiResponse, type TestTenant } from './api-client.js';
export { sineWav, writeSineWav, type SineWavOptions } from './wav.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { replyDrift, serveStandIn, type StandIn, type StandInSettings } from './stand-in.js';
export * from './music/index.js';
export { exposedGc, type Collect } from './exposed-gc.js';
