import { Type, type Static } from '@sinclair/typebox';
import { Line, Timestamp, Uuid } from './common.js';

const PRODUCTS = ['catalog', 'library'] as const;
export type Product = (typeof PRODUCTS)[number];
const PERMISSIONS = ['catalog:api', 'catalog:analysis', 'library:api'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ProductSchema = Type.Union(PRODUCTS.map((p) => Type.Literal(p)));
const PermissionSchema = Type.Union(PERMISSIONS.map((p) => Type.Literal(p)));
const Name = Line(1, 200);
export const SourceSystemName = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$',
  description: "e.g. playout-studio-a; an integration's name (its sourceSystem) binds the key to that integration (decision 0132)",
});

/**
 * Source-system names the platform writes itself (a service's own events, the admin area) or that
 * name an API key (`public-api:<keyId>`), compared without case: no integration takes one and no key
 * is bound to one, so an event's `sourceSystem` never claims a writer it was not (decision 0149).
 */
const RESERVED_SOURCE_SYSTEMS: readonly string[] = ['admin', 'gateway', 'catalog', 'asset', 'analysis', 'events', 'library'];
const RESERVED_SOURCE_SYSTEM_PREFIXES: readonly string[] = ['public-api:', 'system:'];

export function isReservedSourceSystem(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_SOURCE_SYSTEMS.includes(lower) || RESERVED_SOURCE_SYSTEM_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

export const Organization = Type.Object({
  id: Uuid,
  name: Type.String(),
  products: Type.Array(ProductSchema),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Organization = Static<typeof Organization>;

/** What other services learn of an organisation from the gateway that owns it: its plan's products. */
export const OrganizationProducts = Type.Object({ products: Type.Array(ProductSchema) });
export type OrganizationProducts = Static<typeof OrganizationProducts>;

export const CreateOrganizationBody = Type.Object(
  { name: Name, products: Type.Array(ProductSchema, { uniqueItems: true }) },
  { additionalProperties: false },
);
export type CreateOrganizationBody = Static<typeof CreateOrganizationBody>;

export const UpdateOrganizationBody = Type.Object(
  { name: Type.Optional(Name), products: Type.Optional(Type.Array(ProductSchema, { uniqueItems: true })) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateOrganizationBody = Static<typeof UpdateOrganizationBody>;

export const ApiKey = Type.Object({
  id: Uuid,
  organizationId: Uuid,
  name: Type.String(),
  permissions: Type.Array(PermissionSchema),
  sourceSystem: Type.Union([Type.String(), Type.Null()]),
  integrationId: Type.Union([Uuid, Type.Null()], {
    description: "the integration the key is bound to (its writes carry that integration's name as sourceSystem); null when unbound",
  }),
  createdAt: Timestamp,
  rotatedAt: Type.Union([Timestamp, Type.Null()]),
  previousKeyExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description:
      'while the key before the latest rotation still works (a rotation with gracePeriodSeconds above 0): when it stops; null otherwise',
  }),
});
export type ApiKey = Static<typeof ApiKey>;

/** A key as issued or rotated: the key's fields and, this once, the whole key. */
export const IssuedApiKey = Type.Composite([
  ApiKey,
  Type.Object({ key: Type.String({ description: 'the whole key, shown once: sk_ + key id + secret' }) }),
]);
export type IssuedApiKey = Static<typeof IssuedApiKey>;

export const CreateApiKeyBody = Type.Object(
  { name: Name, permissions: Type.Array(PermissionSchema, { uniqueItems: true, minItems: 1 }) },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

/** The longest grace period of a rotation: a week. */
export const MAX_ROTATION_GRACE_SECONDS = 604_800;

/** `POST /admin/v1/api-keys/{keyId}/rotate`; no body at all is `{}` (decision 0120). */
export const RotateApiKeyBody = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_GRACE_SECONDS,
        default: 0,
        description:
          'how long the key before this rotation keeps working besides the new one (0: it stops at once); a previous key still in its grace period stops at once',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RotateApiKeyBody = Static<typeof RotateApiKeyBody>;

/**
 * A key is bound to an integration of its own organisation, by id; `{name}` (an integration's name,
 * as clients sent before) is still taken and names the same integration (decision 0149).
 */
export const BindSourceSystemBody = Type.Union([
  Type.Object({ integrationId: Uuid }, { additionalProperties: false }),
  Type.Object(
    { name: Type.String({ ...SourceSystemName, description: "the name of an integration of the key's organisation" }) },
    { additionalProperties: false },
  ),
]);
export type BindSourceSystemBody = Static<typeof BindSourceSystemBody>;
