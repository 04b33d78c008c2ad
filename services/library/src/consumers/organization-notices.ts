import { GATEWAY_ORGANIZATION_CHANGES_SUBJECT } from '@catalog/contracts';
import type { ServiceRuntime } from '@catalog/platform';
import type { Subscribers } from '../domain/subscribers.js';
import type { LibraryDb } from '../persistence/tables.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organisation a notice names, or null for anything else. */
function organizationOf(data: Uint8Array): string | null {
  try {
    const notice: unknown = JSON.parse(new TextDecoder().decode(data));
    const id = typeof notice === 'object' && notice !== null ? (notice as { organizationId?: unknown }).organizationId : undefined;
    return typeof id === 'string' && UUID.test(id) ? id : null;
  } catch {
    return null;
  }
}

/**
 * Follows the gateway's notices of organisation changes (decision 0149): the library asks at once
 * whether the organisation subscribes, and catches a new subscriber up. Every replica hears each
 * notice (a replica's answers are its own); returns the unsubscribe.
 */
export function followOrganizationNotices(runtime: ServiceRuntime<LibraryDb>, tenants: Pick<Subscribers, 'changed'>): () => Promise<void> {
  const subject = `${runtime.subjects.prefix}.${GATEWAY_ORGANIZATION_CHANGES_SUBJECT}`;
  const running = new Set<Promise<void>>();
  const subscription = runtime.nc.subscribe(subject, {
    callback: (error, message) => {
      if (error) {
        runtime.logger.warn({ err: error }, 'the organisation notices cannot be followed; plan changes reach the library at its next look');
        return;
      }
      const organizationId = organizationOf(message.data);
      if (organizationId === null) {
        runtime.logger.warn('an organisation notice named no organisation; ignored');
        return;
      }
      const look = tenants.changed(organizationId).catch((err: unknown) => {
        runtime.logger.warn({ err, organizationId }, 'looking again at a changed organisation failed; its next event looks again');
      });
      running.add(look);
      void look.finally(() => running.delete(look));
    },
  });
  return async () => {
    subscription.unsubscribe();
    await Promise.allSettled([...running]);
  };
}
