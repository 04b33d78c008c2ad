import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import {
  bindSourceSystem,
  changeOrganization,
  createApiKey,
  createOrganization,
  getOrganization,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  unbindSourceSystem,
  type AdminDeps,
} from '../domain/admin.js';

/** The admin routes, answered by the gateway itself (it is their service edge). */
export function adminOperations(deps: AdminDeps): Operation[] {
  return [
    defineOperation(operationById('createOrganization'), async ({ body }) => ({ body: await createOrganization(deps, body) })),
    defineOperation(operationById('getOrganization'), async ({ params }) => ({ body: await getOrganization(deps, params.orgId) })),
    defineOperation(operationById('updateOrganization'), async ({ params, body }) => ({
      body: await changeOrganization(deps, params.orgId, body),
    })),
    defineOperation(operationById('createApiKey'), async ({ params, body }) => ({ body: await createApiKey(deps, params.orgId, body) })),
    defineOperation(operationById('listApiKeys'), async ({ params }) => ({ body: await listApiKeys(deps, params.orgId) })),
    defineOperation(operationById('rotateApiKey'), async ({ params, body }) => ({
      body: await rotateApiKey(deps, params.keyId, body.gracePeriodSeconds ?? 0),
    })),
    defineOperation(operationById('revokeApiKey'), async ({ params }) => {
      await revokeApiKey(deps, params.keyId);
      return {};
    }),
    defineOperation(operationById('bindSourceSystem'), async ({ params, body }, call) => ({
      body: await bindSourceSystem(deps, params.keyId, body, call.requestId),
    })),
    defineOperation(operationById('unbindSourceSystem'), async ({ params }) => {
      await unbindSourceSystem(deps, params.keyId);
      return {};
    }),
  ];
}
