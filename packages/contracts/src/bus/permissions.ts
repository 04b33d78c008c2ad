import { operations } from '../routes.js';
import { isInternal, type OperationDefinition, type ServiceName } from '../routes/types.js';

/**
 * Who may do what on NATS (decision 0055): one NATS user per service, named after it, whose
 * permissions are derived from the operation table (who answers each operation, who calls it) and
 * the declarations below. `npm start`, `npm test`
 * and the Helm chart render them into nats-server's `authorization` block (./nats-config.ts).
 * Subjects start with the deployment's `NATS_PREFIX`, which is the `*` token here, so one set of
 * users serves every prefix (test files each use their own).
 */

/** The event subjects (after `<prefix>.events.`) each service's outbox relay publishes. */
export const EVENT_SUBJECTS: Partial<Record<ServiceName, readonly string[]>> = {
  catalog: [
    'catalog.entity.>',
    'catalog.entity_type.>',
    'catalog.version.>',
    'catalog.markers.>',
    'catalog.job.>',
    'catalog.molecule.>',
    'catalog.relation.>',
    'catalog.integration.>',
    'catalog.assignment.>',
  ],
  asset: ['catalog.asset.>'],
  analysis: ['catalog.analysis.>'],
  library: ['library.>'],
};

/**
 * How a service uses JetStream: `stream` makes sure the events stream exists (relays and
 * consumers do), `consumer` follows it with a durable pull consumer and acks, `reader` reads
 * stored messages by sequence (the feed writer, to fill gaps), `park` puts a message it cannot
 * apply or publish into the dead-letter stream (decision 0053: event consumers, the feed writer
 * and the outbox relays).
 */
export type JetStreamUse = 'stream' | 'consumer' | 'reader' | 'park';

export const JETSTREAM_USES: Record<ServiceName, readonly JetStreamUse[]> = {
  gateway: [],
  catalog: ['stream', 'consumer', 'park'],
  asset: ['stream', 'consumer', 'park'],
  analysis: ['stream', 'consumer', 'park'],
  events: ['stream', 'consumer', 'reader', 'park'],
  library: ['stream', 'consumer', 'park'],
};

export const BUS_SERVICES: readonly ServiceName[] = ['gateway', 'catalog', 'asset', 'analysis', 'events', 'library'];

export interface BusPermissions {
  user: string;
  publish: string[];
  subscribe: string[];
  /** May answer requests it received (once each), whatever their reply subject. */
  allowResponses: boolean;
}

/** Where a client of user `user` receives replies: its connections use this inbox prefix. */
export function inboxPrefixOf(user: string): string {
  return `_INBOX.${user}`;
}

const ANY_PREFIX = '*';
const rpc = (service: string, operation: string): string => `${ANY_PREFIX}.rpc.${service}.${operation}`;

/** The JetStream API subjects of each use; stream and consumer names are `*` (see decision 0055). */
const JETSTREAM_SUBJECTS: Record<JetStreamUse, readonly string[]> = {
  stream: ['$JS.API.INFO', '$JS.API.STREAM.INFO.*', '$JS.API.STREAM.CREATE.*', '$JS.API.STREAM.UPDATE.*'],
  consumer: [
    '$JS.API.CONSUMER.CREATE.*.*',
    '$JS.API.CONSUMER.CREATE.*.*.>',
    '$JS.API.CONSUMER.INFO.*.*',
    '$JS.API.CONSUMER.MSG.NEXT.*.*',
    '$JS.ACK.*.*.>',
  ],
  reader: ['$JS.API.STREAM.MSG.GET.*'],
  park: [`${ANY_PREFIX}.dead-letters.>`],
};

const table = operations as readonly OperationDefinition[];

/** The services that call an operation: the gateway for every public one, plus those it names. */
export function callersOf(operation: OperationDefinition): readonly ServiceName[] {
  if (isInternal(operation)) return operation.calledBy;
  return operation.service === 'gateway' ? [] : ['gateway', ...(operation.alsoCalledBy ?? [])];
}

/** Operations `service` answers on the bus: its public and internal ones. */
export function operationsServedBy(service: ServiceName): string[] {
  return table.filter((operation) => operation.service === service).map((operation) => operation.operationId);
}

/** The request subjects `service` may publish to: the operations it calls. */
function callsOf(service: ServiceName): string[] {
  return table
    .filter((operation) => callersOf(operation).includes(service))
    .map((operation) => rpc(operation.service, operation.operationId));
}

/**
 * Where the gateway replicas tell each other that the API-key table changed (a notice without
 * data: each replica reads the change from Postgres, decision 0070).
 */
export const GATEWAY_KEY_CHANGES_SUBJECT = 'gateway.key-changes';

/**
 * Where the gateway tells other services that an organisation was created or its plan changed:
 * a notice carrying the organisation's id, after which the library asks for its products again
 * (`getOrganizationProducts`) and starts or stops projecting its events (decision 0149).
 */
export const GATEWAY_ORGANIZATION_CHANGES_SUBJECT = 'gateway.organization-changes';

/** The services that follow the organisation notices. */
export const ORGANIZATION_NOTICE_FOLLOWERS: readonly ServiceName[] = ['library'];

/** The operations the gateway answers on the bus: the internal ones (its public ones it answers itself, over HTTP). */
function busOperationsOfGateway(): string[] {
  return table.filter((operation) => operation.service === 'gateway' && isInternal(operation)).map((operation) => operation.operationId);
}

function gatewayPermissions(): BusPermissions {
  const keyChanges = `${ANY_PREFIX}.${GATEWAY_KEY_CHANGES_SUBJECT}`;
  const served = busOperationsOfGateway().map((operation) => rpc('gateway', operation));
  const monitoring = served.length > 0 ? ['$SRV.*', '$SRV.*.gateway', '$SRV.*.gateway.*'] : [];
  return {
    user: 'gateway',
    publish: [...callsOf('gateway'), keyChanges, `${ANY_PREFIX}.${GATEWAY_ORGANIZATION_CHANGES_SUBJECT}`],
    subscribe: [`${inboxPrefixOf('gateway')}.>`, keyChanges, ...served, ...monitoring],
    allowResponses: served.length > 0,
  };
}

function servicePermissions(service: ServiceName): BusPermissions {
  const calls = callsOf(service);
  const events = (EVENT_SUBJECTS[service] ?? []).map((subject) => `${ANY_PREFIX}.events.${subject}`);
  const jetstream = JETSTREAM_USES[service].flatMap((use) => JETSTREAM_SUBJECTS[use]);
  const served = operationsServedBy(service).map((operation) => rpc(service, operation));
  // @nats-io/services answers pings, info and stats requests on these ($SRV.<verb>[.<name>[.<id>]]).
  const monitoring = ['$SRV.*', `$SRV.*.${service}`, `$SRV.*.${service}.*`];
  const notices = ORGANIZATION_NOTICE_FOLLOWERS.includes(service) ? [`${ANY_PREFIX}.${GATEWAY_ORGANIZATION_CHANGES_SUBJECT}`] : [];
  return {
    user: service,
    publish: [...calls, ...events, ...jetstream],
    subscribe: [`${inboxPrefixOf(service)}.>`, ...served, ...monitoring, ...notices],
    allowResponses: true,
  };
}

/** The NATS user of every service with its permissions, derived from the route table. */
export function busPermissions(): BusPermissions[] {
  return BUS_SERVICES.map((service) => (service === 'gateway' ? gatewayPermissions() : servicePermissions(service)));
}
