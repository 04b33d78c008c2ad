import { Type } from '@sinclair/typebox';
import { HealthStatusSchema, IntegrationKindSchema, ReportedHealthSchema } from '../schemas/integrations.js';
import type { EventTypeDefinition } from './types.js';

export const INTEGRATION_FIELDS = ['name', 'system', 'heartbeatSeconds'] as const;
export type IntegrationField = (typeof INTEGRATION_FIELDS)[number];

/** Why an integration's health changed: its connector's report, or a missed heartbeat (decision 0133). */
export const HEALTH_CHANGE_REASONS = ['reported', 'heartbeat_missed'] as const;
export type HealthChangeReason = (typeof HEALTH_CHANGE_REASONS)[number];

/** Events of the integrations and integration health families (resourceId: the integration; dmrn null). */
export const integrationEvents = [
  {
    type: 'integration.created',
    product: 'catalog',
    resourceKind: 'integration',
    schemaVersion: 1,
    description: 'An integration (an external system, such as a playout system) was connected.',
    data: Type.Object({ name: Type.String(), kind: IntegrationKindSchema }),
  },
  {
    type: 'integration.updated',
    product: 'catalog',
    resourceKind: 'integration',
    schemaVersion: 1,
    description: 'Fields of an integration changed; `changedFields` names them.',
    data: Type.Object({
      changedFields: Type.Array(Type.Union(INTEGRATION_FIELDS.map((f) => Type.Literal(f))), { minItems: 1 }),
    }),
  },
  {
    type: 'integration.deleted',
    product: 'catalog',
    resourceKind: 'integration',
    schemaVersion: 1,
    description:
      'An integration was deleted; each of its assignments was deleted with it (assignment.deleted, reason integration_deleted).',
    data: Type.Object({}),
  },
  {
    type: 'integration.health_changed',
    product: 'catalog',
    resourceKind: 'integration',
    schemaVersion: 1,
    description:
      'The health status of an integration changed: its connector reported another status (`reason` reported), or no report came within its heartbeatSeconds and it is down (`reason` heartbeat_missed, recorded by the catalog).',
    data: Type.Object({
      status: ReportedHealthSchema,
      previous: HealthStatusSchema,
      reason: Type.Union(HEALTH_CHANGE_REASONS.map((r) => Type.Literal(r))),
    }),
  },
] as const satisfies readonly EventTypeDefinition[];
