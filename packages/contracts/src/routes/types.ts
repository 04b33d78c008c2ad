import type { TSchema } from '@sinclair/typebox';
import type { Permission, Product } from '../schemas/admin.js';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Which service answers an operation; `gateway` operations are answered by the gateway itself. */
export type ServiceName = 'gateway' | 'catalog' | 'asset' | 'analysis' | 'events' | 'library';

export type RouteAuth =
  | { kind: 'apiKey'; product: Product; permission: Permission; /** plan entitlement check (402) */ entitlement: boolean }
  | { kind: 'admin' }
  | { kind: 'none' };

export interface RouteDefinition {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path: `/api/v1/catalog/entities/{id}`. */
  path: string;
  summary: string;
  tag: string;
  service: ServiceName;
  auth: RouteAuth;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** Success status and its body schema (undefined: no body, e.g. 204). */
  success: {
    status: number;
    description: string;
    schema?: TSchema;
    /**
     * The answer is a byte stream, not JSON: the service replies `{location}` (a short-lived signed
     * URL of its HTTP listener) and the gateway streams that URL's response to the client.
     */
    stream?: boolean;
  };
  /**
   * Requests per minute per API key (any 60-second span), shared by all gateway replicas; over it
   * the gateway answers 429 with Retry-After. Only for API-key routes.
   */
  rateLimit?: { perMinute: number };
  /** Error statuses this operation documents besides the ones every authenticated route has. */
  errors?: number[];
}

export const catalogApi: RouteAuth = { kind: 'apiKey', product: 'catalog', permission: 'catalog:api', entitlement: true };
export const adminAuth: RouteAuth = { kind: 'admin' };
