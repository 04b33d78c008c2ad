import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { createMolecule, deleteMolecule, getMolecule, listMolecules, updateMolecule, type MoleculeDeps } from '../domain/molecules.js';

/** The molecule operations of the table (decision 0137), answered by domain/molecules.ts. */
export function moleculeOperations(deps: MoleculeDeps): Operation[] {
  return [
    defineOperation(operationById('createMolecule'), async ({ body }, call) => ({ body: await createMolecule(deps, call, body) })),
    defineOperation(operationById('listMolecules'), async ({ query }, call, reply) => ({
      body: await listMolecules(deps, call, query, reply.maxBodyBytes),
    })),
    defineOperation(operationById('getMolecule'), async ({ params }, call) => ({ body: await getMolecule(deps, call, params.id) })),
    defineOperation(operationById('updateMolecule'), async ({ params, body }, call) => ({
      body: await updateMolecule(deps, call, params.id, body),
    })),
    defineOperation(operationById('deleteMolecule'), async ({ params }, call) => {
      await deleteMolecule(deps, call, params.id);
      return {};
    }),
  ];
}
