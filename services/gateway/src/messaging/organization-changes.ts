import { GATEWAY_ORGANIZATION_CHANGES_SUBJECT } from '@catalog/contracts';
import type { Logger, NatsConnection, Subjects } from '@catalog/platform';

/**
 * Tells the services that follow organisations (the library) that one was created or its plan
 * changed (decision 0149): a plain NATS message with the organisation's id on
 * `<prefix>.gateway.organization-changes`; they ask for its products again. A lost notice is caught
 * up by the library at the organisation's next event (its answers are kept a short time only).
 */
export function announceOrganizationChange(nc: NatsConnection, subjects: Subjects, logger: Logger, organizationId: string): void {
  try {
    nc.publish(`${subjects.prefix}.${GATEWAY_ORGANIZATION_CHANGES_SUBJECT}`, JSON.stringify({ organizationId }));
  } catch (error) {
    logger.warn({ err: error, organizationId }, 'could not announce an organisation change; the library sees it at its next event');
  }
}
