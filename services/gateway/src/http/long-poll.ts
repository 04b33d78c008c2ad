import type { RouteDefinition } from '@catalog/contracts';

/**
 * How long the gateway waits for the answer of a request: its RPC timeout, plus what a long poll
 * (`route.longPoll`) asks the service to hold it, within `ceilingMs` (below the listener's idle
 * timeout, so a held request is never cut as an idle connection). A wait that is not a whole
 * number of seconds within the route's bound adds nothing: the service refuses it with 400.
 */
export function answerTimeoutMs(route: RouteDefinition, query: Record<string, unknown>, rpcTimeoutMs: number, ceilingMs: number): number {
  const poll = route.longPoll;
  if (!poll) return rpcTimeoutMs;
  const value = query[poll.parameter];
  const seconds = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : 0;
  if (seconds > poll.maxSeconds) return rpcTimeoutMs;
  return Math.max(rpcTimeoutMs, Math.min(rpcTimeoutMs + seconds * 1000, ceilingMs));
}
