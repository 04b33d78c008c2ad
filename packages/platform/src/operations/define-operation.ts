import type { Static, TSchema } from '@sinclair/typebox';
import type { OperationDefinition } from '@catalog/contracts';
import type { CallContext } from '../bus/context.js';
import type { JsonText, RpcHandler, RpcReplyLimits } from '../bus/rpc.js';
import { requestChecks } from './request-checks.js';

type SchemaAt<D, K extends 'params' | 'query' | 'headers' | 'body'> = D extends { readonly [P in K]: infer S extends TSchema }
  ? S
  : undefined;
type StaticOf<S, Otherwise> = S extends TSchema ? Static<S> : Otherwise;

/** What a handler receives: the request after its operation's schemas, typed by them. */
export interface OperationInput<D> {
  params: StaticOf<SchemaAt<D, 'params'>, Record<string, never>>;
  query: StaticOf<SchemaAt<D, 'query'>, Record<string, never>>;
  /** The request headers the operation names in the table (lower-case), checked like the query. */
  headers: StaticOf<SchemaAt<D, 'headers'>, Record<string, never>>;
  body: StaticOf<SchemaAt<D, 'body'>, undefined>;
}

/**
 * The success body an operation answers with: its schema's type (or JSON text already made), none
 * for 204; a streamed answer is the signed location the gateway streams from (so is a large one,
 * answered with status 303, of an operation `streamedWhenLarge`).
 */
export type OperationBody<D> = D extends { readonly success: { readonly schema: infer S extends TSchema } }
  ? Static<S> | JsonText | (D extends { readonly success: { readonly streamedWhenLarge: true } } ? { location: string } : never)
  : D extends { readonly success: { readonly stream: true } }
    ? { location: string }
    : undefined;

/** A handler's answer; the status defaults to the operation's success status. */
export type OperationResult<D> = { status?: number; headers?: Record<string, string> } & (OperationBody<D> extends undefined
  ? { body?: undefined }
  : { body: OperationBody<D> });

export type OperationHandler<D> = (input: OperationInput<D>, call: CallContext, reply: RpcReplyLimits) => Promise<OperationResult<D>>;

/** An operation of the table bound to the handler that answers it, ready to be served on the bus. */
export interface Operation {
  readonly definition: OperationDefinition;
  readonly handle: RpcHandler;
}

/**
 * The one operation boundary of a service (decision 0062): `definition` is the operation's entry in the
 * table of `@catalog/contracts` (`operationById('createEntity')`), the single source of its schemas;
 * the request is checked against them once, here at the service's edge (see requestChecks), and
 * the handler receives the typed, defaulted values (ids in lower case) and answers with the typed success body.
 */
export function defineOperation<const D extends OperationDefinition>(definition: D, handler: OperationHandler<D>): Operation {
  const check = requestChecks(definition);
  return {
    definition,
    async handle(request, call, reply) {
      const input = check(request, call.tenantId) as unknown as OperationInput<D>;
      // The tenant in the one case of the request's ids (requestChecks lower-cases them).
      const tenantId = call.tenantId.toLowerCase();
      const result = await handler(input, tenantId === call.tenantId ? call : { ...call, tenantId }, reply);
      return {
        status: result.status ?? definition.success.status,
        body: result.body,
        ...(result.headers ? { headers: result.headers } : {}),
      };
    },
  };
}
