import { operationsOf, schemaValidator, type OperationDefinition, type ServiceName } from '@catalog/contracts';
import { JsonText, serveRpc, type RpcHandler, type RpcResult, type RpcServer, type RpcServiceSettings } from '@catalog/platform';

export interface StandInSettings extends Omit<RpcServiceSettings, 'service' | 'version' | 'handlers'> {
  /** The service it plays: each handler must be one of that service's operations in the route table. */
  service: ServiceName;
  handlers: Record<string, RpcHandler>;
}

export interface StandIn extends RpcServer {
  /** What each reply that left the route table's schema got wrong, in order. */
  drift: string[];
}

/** A reply that points the caller at a stream (`stream`, `streamedWhenLarge`): the signed URL it reads. */
const isLocation = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  Object.keys(body).length === 1 &&
  typeof (body as { location?: unknown }).location === 'string';

/** How a successful reply differs from what the table says the operation answers; none when it matches. */
export function replyDrift(operation: OperationDefinition, result: RpcResult): string[] {
  const { success } = operation;
  const status = result.status ?? 200;
  const body = result.body instanceof JsonText ? result.body.parse() : (result.body ?? null);
  if (success.streamedWhenLarge && status === 303) return isLocation(body) ? [] : ['303 without a {location} body'];
  const statuses = [success.status, ...(success.alsoStatus ? [success.alsoStatus.status] : [])];
  if (!statuses.includes(status)) return [`status ${status}, the table says ${statuses.join(' or ')}`];
  if (success.stream) return isLocation(body) ? [] : ['a stream answered without a {location} body'];
  if (!success.schema) return body === null ? [] : ['a body where the table has none'];
  return schemaValidator(success.schema)(body).map((issue) => `body${issue.path === '/' ? '' : issue.path} ${issue.message}`);
}

/**
 * Serves `handlers` on the bus as `service` would, for a test that plays that service. Every reply
 * is checked against the route table's success schema of its operation: a reply that drifted from
 * the contract (one the real service never sends) is answered as an internal error and recorded,
 * and `stop()` rejects naming it, so the test fails instead of passing on a double that lies.
 */
export async function serveStandIn(settings: StandInSettings): Promise<StandIn> {
  const known = new Map(operationsOf(settings.service).map((operation) => [operation.operationId, operation]));
  const drift: string[] = [];
  const handlers = Object.fromEntries(
    Object.entries(settings.handlers).map(([operationId, handler]): [string, RpcHandler] => {
      const operation = known.get(operationId);
      if (!operation) throw new Error(`${operationId} is not an operation of the ${settings.service} service in the route table`);
      return [
        operationId,
        async (request, call, limits) => {
          const result = await handler(request, call, limits);
          const issues = replyDrift(operation, result);
          if (issues.length === 0) return result;
          drift.push(...issues.map((issue) => `${operationId}: ${issue}`));
          throw new Error(`the stand-in's reply to ${operationId} is not what the route table says: ${issues.join('; ')}`);
        },
      ];
    }),
  );
  const server = await serveRpc({ ...settings, version: '0.0.0', handlers });
  return {
    service: server.service,
    drift,
    async stop(timeoutMs) {
      await server.stop(timeoutMs);
      if (drift.length > 0) throw new Error(`the ${settings.service} stand-in's replies left the route table: ${drift.join('; ')}`);
    },
  };
}
