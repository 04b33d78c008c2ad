import { Type } from '@sinclair/typebox';
import { Asset, AssetWithUpload, AttachAssetRpcBody, CreateAssetRpcBody, ReleaseAssetRpcBody } from '../schemas/assets.js';
import {
  AppliedCuePointMarkers,
  ApplyCuePointMarkersBody,
  ResolveAnalysisSourceBody,
  ResolvedAnalysisSource,
} from '../schemas/analysis-jobs.js';
import { OrganizationProducts } from '../schemas/admin.js';
import { IdParams } from '../schemas/common.js';
import { EntitiesRead, EntityTenantsPage, ListEntityTenantsQuery, ReadEntitiesBody } from '../schemas/library.js';
import type { InternalOperationDefinition } from './types.js';

/**
 * Operations services call among themselves over the bus, never public (no route, no OpenAPI
 * entry). Listed here with the public ones so that every bus subject, its schemas and who may call
 * it are in one table (the NATS permissions are derived from it, decision 0055).
 */
export const internalOperations = [
  {
    operationId: 'createVersionAsset',
    internal: true,
    service: 'asset',
    calledBy: ['catalog'],
    summary: "A new asset for a version's upload: attached to the entity and version the catalog names, awaiting its upload",
    body: CreateAssetRpcBody,
    success: { status: 201, description: 'the asset (PENDING_UPLOAD) and its upload target', schema: AssetWithUpload },
  },
  {
    operationId: 'attachAsset',
    internal: true,
    service: 'asset',
    calledBy: ['catalog'],
    summary: 'Make an existing asset the file of a version (it stops expiring)',
    params: IdParams,
    resources: { id: 'asset' },
    body: AttachAssetRpcBody,
    success: { status: 200, description: 'the asset', schema: Asset },
  },
  {
    operationId: 'releaseAsset',
    internal: true,
    service: 'asset',
    calledBy: ['catalog'],
    summary: "Undo attachAsset for a version that was never written: released only if still that version's file",
    params: IdParams,
    resources: { id: 'asset' },
    body: ReleaseAssetRpcBody,
    success: { status: 200, description: 'whether it was released', schema: Type.Object({ released: Type.Boolean() }) },
  },
  {
    operationId: 'locateAssetListener',
    internal: true,
    service: 'asset',
    calledBy: ['gateway'],
    tenantScoped: false,
    summary: "The base URL of an asset replica's HTTP listener, where the gateway streams a signed upload",
    success: { status: 200, description: 'the listener', schema: Type.Object({ url: Type.String() }) },
  },
  {
    operationId: 'getOrganizationProducts',
    internal: true,
    service: 'gateway',
    calledBy: ['library'],
    summary:
      "The products of the calling tenant's organisation: the library projects only its subscribers' events (part 6, rule 13); 404 for an organisation that does not exist",
    success: { status: 200, description: 'the products of its plan', schema: OrganizationProducts },
  },
  {
    operationId: 'listEntityTenants',
    internal: true,
    service: 'catalog',
    calledBy: ['library'],
    tenantScoped: false,
    summary: "The tenants that have (or had) entities, in id order, keyset paged: the library's rebuild walks them",
    query: ListEntityTenantsQuery,
    success: { status: 200, description: 'a page of tenant ids', schema: EntityTenantsPage },
  },
  {
    operationId: 'readEntities',
    internal: true,
    service: 'catalog',
    calledBy: ['library'],
    summary:
      "Several entities of the tenant at once (the library's projection refreshes a batch of them, decision 0111); an answer that would not fit the bus leaves the last ones out of both lists, to be asked again",
    body: ReadEntitiesBody,
    success: { status: 200, description: 'the entities found and the ids not found', schema: EntitiesRead },
  },
  {
    operationId: 'resolveAnalysisSource',
    internal: true,
    service: 'catalog',
    calledBy: ['analysis'],
    summary: "An analysis source: an entity's primary ONLINE audio version, or a version; 404 unknown, 415 not audio, 409 not ONLINE",
    body: ResolveAnalysisSourceBody,
    success: { status: 200, description: 'the version, its entity, file and DMRN', schema: ResolvedAnalysisSource },
  },
  {
    operationId: 'applyCuePointMarkers',
    internal: true,
    service: 'catalog',
    calledBy: ['analysis'],
    summary: "An analysis' cue points as the version's markers, where the entity type asks for it; markers set by hand win",
    body: ApplyCuePointMarkersBody,
    success: { status: 200, description: 'what was done', schema: AppliedCuePointMarkers },
  },
  {
    operationId: 'recordAssetState',
    internal: true,
    service: 'catalog',
    calledBy: ['asset'],
    summary:
      "A version's file as its confirmation left it (ONLINE or FAILED), applied by the catalog before the confirmation answers, so every read after it sees it (decision 0115)",
    body: Asset,
    success: {
      status: 200,
      description: 'whether the automatic analyses were requested by this call',
      schema: Type.Object({ analysesRequested: Type.Boolean() }),
    },
  },
] as const satisfies readonly InternalOperationDefinition[];
