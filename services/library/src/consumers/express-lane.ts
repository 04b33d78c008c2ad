import { decodeBusEvent, type ConsumerMessage, type ConsumerSession } from '@catalog/platform';
import { entityOf } from '../domain/projection.js';

/** Says, event by event, whether a tenant is busy: more than `maxEvents` of its events seen in the current window. */
export interface BusyTenants {
  /** Counts one event of the tenant; true when the tenant is over its share of the window. */
  count(tenantId: string): boolean;
}

/** Windows kept at most before the stale ones are dropped (bounded memory whatever the tenants). */
const MAX_TRACKED = 10_000;

export function busyTenants(settings: { windowMs: number; maxEvents: number }, now: () => number = Date.now): BusyTenants {
  const windows = new Map<string, { startedAt: number; events: number }>();
  return {
    count(tenantId) {
      const at = now();
      let window = windows.get(tenantId);
      if (!window || at - window.startedAt >= settings.windowMs) {
        if (windows.size >= MAX_TRACKED) {
          for (const [tenant, w] of windows) if (at - w.startedAt >= settings.windowMs) windows.delete(tenant);
        }
        window = { startedAt: at, events: 0 };
        windows.set(tenantId, window);
      }
      window.events += 1;
      return window.events > settings.maxEvents;
    },
  };
}

/**
 * The express path's view of a session (decision 0150): only the entity events of tenants that
 * are not busy pass; every other message is acknowledged at once, cheaply, and left to the main
 * consumer, which applies every event. So the express consumer keeps up with the stream's head
 * while one tenant's backlog (a large import) is projected, and a quiet tenant's new entity is
 * applied as soon as it is published.
 */
export function expressSession(session: ConsumerSession, busy: BusyTenants): ConsumerSession {
  async function* quiet(): AsyncGenerator<ConsumerMessage> {
    for await (const msg of session.messages) {
      const event = decodeBusEvent(msg.data);
      if (event && !busy.count(event.tenantId) && entityOf(event) !== null) yield msg;
      else session.applied(msg);
    }
  }
  return { ...session, messages: quiet() };
}
