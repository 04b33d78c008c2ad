import { IdParams } from '../schemas/common.js';
import { CreateMoleculeBody, ListMoleculesQuery, Molecule, MoleculePage, UpdateMoleculeBody } from '../schemas/molecules.js';
import { catalogApi, type RouteDefinition } from './types.js';

const MoleculesPath = '/api/v1/catalog/molecules';
const MoleculePath = `${MoleculesPath}/{id}`;

/** Molecules (decision 0137), answered by the catalog service. */
export const moleculeRoutes = [
  {
    operationId: 'createMolecule',
    method: 'POST',
    path: MoleculesPath,
    summary: 'Create a molecule: an ordered composite of entities that plays as one unit (1-50 elements)',
    tag: 'Molecules',
    service: 'catalog',
    auth: catalogApi,
    idempotent: true,
    body: CreateMoleculeBody,
    success: { status: 201, description: 'the created molecule with its resolved timeline', schema: Molecule },
    errors: [400, 404],
  },
  {
    operationId: 'listMolecules',
    method: 'GET',
    path: MoleculesPath,
    summary: 'List the molecules of the tenant, oldest first (keyset pagination), each with its resolved timeline',
    tag: 'Molecules',
    service: 'catalog',
    auth: catalogApi,
    query: ListMoleculesQuery,
    success: { status: 200, description: 'a page of molecules', schema: MoleculePage },
    errors: [400],
  },
  {
    operationId: 'getMolecule',
    method: 'GET',
    path: MoleculePath,
    summary: "Read a molecule with its timeline, resolved now from its entities' primary versions and their cue points",
    tag: 'Molecules',
    service: 'catalog',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'molecule' },
    success: { status: 200, description: 'the molecule', schema: Molecule },
    errors: [404],
  },
  {
    operationId: 'updateMolecule',
    method: 'PATCH',
    path: MoleculePath,
    summary: 'Change the title of a molecule or replace its elements',
    tag: 'Molecules',
    service: 'catalog',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'molecule' },
    body: UpdateMoleculeBody,
    success: { status: 200, description: 'the molecule after the change', schema: Molecule },
    errors: [400, 404],
  },
  {
    operationId: 'deleteMolecule',
    method: 'DELETE',
    path: MoleculePath,
    summary: 'Delete a molecule (its entities stay)',
    tag: 'Molecules',
    service: 'catalog',
    auth: catalogApi,
    params: IdParams,
    resources: { id: 'molecule' },
    success: { status: 204, description: 'deleted' },
    errors: [404],
  },
] as const satisfies readonly RouteDefinition[];
