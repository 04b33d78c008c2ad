import { Type, type Static } from '@sinclair/typebox';
import { SourceSystemName } from './admin.js';
import { Line, PageAfter, Text, Timestamp, Uuid } from './common.js';

/**
 * Integrations (external systems a tenant connects, such as a playout system), the entities a
 * playout integration carries (assignments) with their sync state, and the integration's health
 * (decisions 0132, 0133).
 */

export const INTEGRATION_KINDS = ['playout', 'other'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];
export const IntegrationKindSchema = Type.Union(INTEGRATION_KINDS.map((k) => Type.Literal(k)));

/** What a connector reports of itself. */
export const REPORTED_HEALTH = ['healthy', 'degraded', 'down'] as const;
export type ReportedHealth = (typeof REPORTED_HEALTH)[number];
export const ReportedHealthSchema = Type.Union(REPORTED_HEALTH.map((s) => Type.Literal(s)));

/** The health an integration shows: `unknown` until its first report (or its first missed heartbeat). */
export const HEALTH_STATUSES = ['unknown', ...REPORTED_HEALTH] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];
export const HealthStatusSchema = Type.Union(HEALTH_STATUSES.map((s) => Type.Literal(s)));

export const SYNC_STATES = ['pending', 'synced', 'failed'] as const;
export type SyncState = (typeof SYNC_STATES)[number];
export const SyncStateSchema = Type.Union(SYNC_STATES.map((s) => Type.Literal(s)));

/** Longest heartbeat: a day. */
export const MAX_HEARTBEAT_SECONDS = 86_400;

export const IntegrationName = Line(1, 200, 'free text a person reads, e.g. "Studio A playout"; unique per tenant');
const IntegrationSourceSystem = Type.String({
  pattern: SourceSystemName.pattern,
  description:
    'the `sourceSystem` the writes of the API keys bound to it carry, unique per tenant and fixed once created; derived from the name when left out ("Studio A playout" → studio-a-playout; decision 0160)',
});
const SystemName = Line(1, 200, 'the external product, free text, e.g. mAirList or Rivendell');
const HeartbeatSeconds = Type.Integer({
  minimum: 1,
  maximum: MAX_HEARTBEAT_SECONDS,
  description: 'the integration is down by itself when no health report came within this many seconds (none: it never lapses)',
});

export const IntegrationHealth = Type.Object({
  status: HealthStatusSchema,
  since: Timestamp,
  message: Type.Optional(Type.String({ description: "the connector's words with its report, or why the catalog set the status" })),
});
export type IntegrationHealth = Static<typeof IntegrationHealth>;

export const AssignmentCounts = Type.Object(
  { pending: Type.Integer({ minimum: 0 }), synced: Type.Integer({ minimum: 0 }), failed: Type.Integer({ minimum: 0 }) },
  { description: 'how many of its assignments are in each sync state' },
);

export const Integration = Type.Object({
  id: Uuid,
  name: Type.String(),
  kind: IntegrationKindSchema,
  system: Type.Union([Type.String(), Type.Null()]),
  heartbeatSeconds: Type.Union([Type.Integer(), Type.Null()]),
  sourceSystem: Type.String({ description: 'the source system its bound API keys write as (given or derived from the name at creation)' }),
  health: IntegrationHealth,
  assignments: AssignmentCounts,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Integration = Static<typeof Integration>;

export const CreateIntegrationBody = Type.Object(
  {
    name: IntegrationName,
    sourceSystem: Type.Optional(IntegrationSourceSystem),
    kind: IntegrationKindSchema,
    system: Type.Optional(SystemName),
    heartbeatSeconds: Type.Optional(HeartbeatSeconds),
  },
  { additionalProperties: false },
);
export type CreateIntegrationBody = Static<typeof CreateIntegrationBody>;

export const UpdateIntegrationBody = Type.Object(
  {
    name: Type.Optional(IntegrationName),
    system: Type.Optional(Type.Union([SystemName, Type.Null()])),
    heartbeatSeconds: Type.Optional(Type.Union([HeartbeatSeconds, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationBody>;

export const ListIntegrationsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type ListIntegrationsQuery = Static<typeof ListIntegrationsQuery>;

export const ReportHealthBody = Type.Object(
  { status: ReportedHealthSchema, message: Type.Optional(Text(1, 500)) },
  { additionalProperties: false },
);
export type ReportHealthBody = Static<typeof ReportHealthBody>;

export const IntegrationParams = Type.Object({ id: Uuid });
export const AssignmentParams = Type.Object({ id: Uuid, entityId: Uuid });

export const Assignment = Type.Object({
  id: Uuid,
  integrationId: Uuid,
  entityId: Uuid,
  syncState: SyncStateSchema,
  versionIds: Type.Array(Uuid, { description: 'the versions the connector last reported synced (its failed report: the ones it tried)' }),
  externalId: Type.Union([Type.String(), Type.Null()], { description: "the entity's id in the external system, as last reported" }),
  error: Type.Union([Type.String(), Type.Null()], { description: "while failed: the connector's reason" }),
  stateChangedAt: Timestamp,
  syncedAt: Type.Union([Timestamp, Type.Null()], { description: 'the last report that made it synced' }),
  createdAt: Timestamp,
});
export type Assignment = Static<typeof Assignment>;

export const ListAssignmentsQuery = Type.Object(
  {
    syncState: Type.Optional(SyncStateSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type ListAssignmentsQuery = Static<typeof ListAssignmentsQuery>;

/** One primary version per kind at most. */
const MAX_REPORTED_VERSIONS = 3;

export const ReportSyncBody = Type.Object(
  {
    state: Type.Union([Type.Literal('synced'), Type.Literal('failed')]),
    versionIds: Type.Optional(
      Type.Array(Uuid, {
        maxItems: MAX_REPORTED_VERSIONS,
        uniqueItems: true,
        description: "the entity's versions the connector took (send them): one no longer primary leaves the assignment pending",
      }),
    ),
    externalId: Type.Optional(Line(1, 200, "the entity's id in the external system")),
    error: Type.Optional(Text(1, 500, 'why the sync failed (state failed only, and required there)')),
  },
  { additionalProperties: false },
);
export type ReportSyncBody = Static<typeof ReportSyncBody>;
