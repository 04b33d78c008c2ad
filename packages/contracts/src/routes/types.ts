import type { TSchema } from '@sinclair/typebox';
import type { Permission, Product } from '../schemas/admin.js';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Which service answers an operation; `gateway` operations are answered by the gateway itself. */
export type ServiceName = 'gateway' | 'catalog' | 'asset' | 'analysis' | 'events' | 'library';

export type RouteAuth =
  | { kind: 'apiKey'; product: Product; permission: Permission; /** plan entitlement check (402) */ entitlement: boolean }
  | { kind: 'admin' }
  | { kind: 'none' };

/** What every operation of the table has, public or internal. */
export interface OperationBase {
  readonly operationId: string;
  readonly summary: string;
  /** The service that answers it (on `<prefix>.rpc.<service>.<operationId>`). */
  readonly service: ServiceName;
  readonly params?: TSchema;
  readonly query?: TSchema;
  /**
   * Request headers the operation reads, an object schema of lower-case names (`idempotency-key`):
   * the gateway forwards exactly these, the service checks them like the query.
   */
  readonly headers?: TSchema;
  readonly body?: TSchema;
  /** The body may be left out (no bytes): it is then checked, and defaulted, as `{}`. */
  readonly bodyOptional?: true;
  /**
   * What each path parameter names, for the 404 of an unknown or malformed one (`{ id: 'entity' }`);
   * a parameter not named here is a `resource`.
   */
  readonly resources?: Readonly<Record<string, string>>;
  /** false: the call acts for no tenant (the admin area, locating a listener); else it needs one. */
  readonly tenantScoped?: false;
  /** Success status and its body schema (undefined: no body, e.g. 204). */
  readonly success: {
    readonly status: number;
    readonly description: string;
    readonly schema?: TSchema;
    /**
     * The answer is a byte stream, not JSON: the service replies `{location}` (a short-lived signed
     * URL of its HTTP listener) and the gateway streams that URL's response to the client.
     */
    readonly stream?: boolean;
    /**
     * A body too large for a bus reply is streamed: the service answers 303 with `{location}` (a
     * short-lived signed URL of its HTTP listener) and the gateway streams that URL's response, the
     * JSON `schema` describes, to the client (decision 0113).
     */
    readonly streamedWhenLarge?: true;
    /**
     * Another success status answered with the same body (a create that finds the resource there
     * already answers 200 with it, decision 0136).
     */
    readonly alsoStatus?: { readonly status: number; readonly description: string };
  };
}

/** A public operation: an HTTP route of the gateway, answered by `service` over the bus (or by the gateway itself). */
export interface RouteDefinition extends OperationBase {
  readonly method: HttpMethod;
  /** OpenAPI-style path: `/api/v1/catalog/entities/{id}`. */
  readonly path: string;
  readonly tag: string;
  readonly auth: RouteAuth;
  /**
   * Requests per minute per API key (any 60-second span), shared by all gateway replicas; over it
   * the gateway answers 429 with Retry-After. Only for API-key routes.
   */
  readonly rateLimit?: { readonly perMinute: number };
  /**
   * A long poll: the query parameter that holds the request up to that many seconds (at most
   * `maxSeconds`); the gateway waits that much longer than its usual RPC timeout for the answer.
   */
  readonly longPoll?: { readonly parameter: string; readonly maxSeconds: number };
  /** Error statuses this operation documents besides the ones every authenticated route has. */
  readonly errors?: readonly number[];
  /** Services that call it over the bus besides the gateway (the catalog reads assets, say). */
  readonly alsoCalledBy?: readonly ServiceName[];
  /**
   * A POST that creates something: the gateway honours `Idempotency-Key` on it (decision 0119),
   * answering a retry with the first answer (`Idempotent-Replayed: true`) instead of running it again.
   */
  readonly idempotent?: true;
}

/**
 * An operation services call among themselves over the bus, never public: no HTTP route, no
 * OpenAPI entry. It carries the caller's tenant context like a public one.
 */
export interface InternalOperationDefinition extends OperationBase {
  readonly internal: true;
  /** The services allowed to call it (the NATS permissions follow, decision 0055). */
  readonly calledBy: readonly ServiceName[];
}

/** Any operation of the table. */
export type OperationDefinition = RouteDefinition | InternalOperationDefinition;

export function isInternal(operation: OperationDefinition): operation is InternalOperationDefinition {
  return 'internal' in operation && operation.internal;
}

export const catalogApi = { kind: 'apiKey', product: 'catalog', permission: 'catalog:api', entitlement: true } as const satisfies RouteAuth;
export const libraryApi = { kind: 'apiKey', product: 'library', permission: 'library:api', entitlement: true } as const satisfies RouteAuth;
export const adminAuth = { kind: 'admin' } as const satisfies RouteAuth;
