import { badRequest, isUuid, notFound, type RpcHandler, type RpcRequest } from '@catalog/platform';
import {
  AttachAssetRpcBody,
  CreateAssetRpcBody,
  ReleaseAssetRpcBody,
  schemaValidator,
  UploadDescription,
  type AttachAssetRpcBody as AttachBody,
  type CreateAssetRpcBody as CreateBody,
  type ReleaseAssetRpcBody as ReleaseBody,
  type UploadDescription as Description,
} from '@catalog/contracts';
import type { AssetService } from '../domain/assets.js';
import type { ReleaseOutcome, ReleaseRequest } from '../domain/release.js';

/** Checks a body here too: internal callers (the catalog) do not pass through the gateway. */
function bodyChecker<T>(schema: Parameters<typeof schemaValidator>[0]): (body: unknown) => T {
  const validate = schemaValidator(schema);
  return (body) => {
    const issues = validate(body);
    if (issues.length > 0) throw badRequest('invalid_body', 'invalid body', { fields: issues });
    return body as T;
  };
}

function assetId(request: RpcRequest): string {
  const id = request.params.id;
  if (!isUuid(id)) throw notFound('asset');
  return id.toLowerCase();
}

const createBody = bodyChecker<CreateBody>(CreateAssetRpcBody);
const uploadBody = bodyChecker<Description>(UploadDescription);
const attachBody = bodyChecker<AttachBody>(AttachAssetRpcBody);
const releaseBody = bodyChecker<ReleaseBody>(ReleaseAssetRpcBody);

/**
 * The asset service's operations on NATS. The public ones (createAsset, getAsset, confirmAsset,
 * requestAssetUpload, downloadAsset) are in the route table; attachAsset and releaseAsset are for
 * the catalog only. `release` is `releaseAsset` of domain/release.ts bound to its dependencies.
 */
export function assetRpcHandlers(
  assets: AssetService,
  release: (request: ReleaseRequest) => Promise<ReleaseOutcome>,
): Record<string, RpcHandler> {
  return {
    createAsset: async (request, call) => ({ status: 201, body: await assets.create(call, createBody(request.body)) }),
    getAsset: async (request, call) => ({ body: await assets.get(call, assetId(request)) }),
    confirmAsset: async (request, call) => ({ body: await assets.confirm(call, assetId(request)) }),
    requestAssetUpload: async (request, call) => ({ body: await assets.requestUpload(call, assetId(request), uploadBody(request.body)) }),
    downloadAsset: async (request, call) => ({ body: { location: await assets.downloadLocation(call, assetId(request)) } }),
    attachAsset: async (request, call) => {
      const body = attachBody(request.body ?? {});
      return { body: await assets.attach(call, assetId(request), body) };
    },
    releaseAsset: async (request, call) => {
      const body = releaseBody(request.body ?? {});
      const outcome = await release({
        tenantId: call.tenantId,
        assetId: assetId(request),
        versionId: body.versionId,
        sourceSystem: call.sourceSystem,
      });
      return { body: { released: outcome === 'released' } };
    },
  };
}
