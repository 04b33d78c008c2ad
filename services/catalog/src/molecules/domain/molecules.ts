import type {
  CreateMoleculeBody,
  ListMoleculesQuery,
  Molecule,
  MoleculeElementInput,
  MoleculeField,
  UpdateMoleculeBody,
} from '@catalog/contracts';
import {
  afterId,
  badRequest,
  idPage,
  inTenantScope,
  inTenantTransaction,
  newId,
  notFound,
  outboxFor,
  type CallContext,
  type Kysely,
  type Transaction,
} from '@catalog/platform';
import {
  deleteElements,
  deleteMoleculeRow,
  findMolecule,
  insertElements,
  insertMoleculeRow,
  lockEntitiesForElements,
  selectElements,
  selectResolvedMolecules,
  touchMolecule,
  type NewElement,
} from '../persistence/molecules.js';
import type { CatalogDb } from '../../persistence/tables.js';

import { moleculeViews } from './molecule-view.js';

/**
 * Molecules (decision 0137): a named, ordered composite of entities that plays as one unit. The
 * elements are stored as sent (defaults filled in); the timeline is resolved on every read from
 * the entities' primary versions, so it follows their changes without a write.
 */
export interface MoleculeDeps {
  db: Kysely<CatalogDb>;
}

const DEFAULT_PAGE_SIZE = 20;

export interface MoleculePage {
  molecules: Molecule[];
  nextCursor: string | null;
  hasMore: boolean;
}

const moleculeNotFound = () => notFound('molecule');

/**
 * The elements with their defaults (kind AUDIO, anchor previous_cue_out, offset 0). An offset
 * before the molecule's start (negative with anchor `start`) is 400 invalid_elements.
 */
export function normalizeElements(elements: readonly MoleculeElementInput[], path = '/elements'): NewElement[] {
  const normalized = elements.map((element) => ({
    entityId: element.entityId,
    kind: element.kind ?? 'AUDIO',
    anchor: element.anchor ?? 'previous_cue_out',
    offsetMs: element.offsetMs ?? 0,
  }));
  const fields = normalized.flatMap((element, index) =>
    element.anchor === 'start' && element.offsetMs < 0
      ? [{ location: 'body', path: `${path}/${index}/offsetMs`, message: 'must not be negative with anchor start' }]
      : [],
  );
  if (fields.length > 0) throw badRequest('invalid_elements', 'an element would start before the molecule', { fields });
  return normalized;
}

/** Locks the elements' entities against deletion until the transaction ends; 404 when the tenant lacks one. */
async function lockElementEntities(trx: Transaction<CatalogDb>, tenantId: string, elements: readonly NewElement[]): Promise<void> {
  const found = await lockEntitiesForElements(
    trx,
    tenantId,
    elements.map((element) => element.entityId),
  );
  if (elements.some((element) => !found.has(element.entityId))) throw notFound('entity');
}

/** The molecule as the API shows it, its timeline resolved in `db`'s snapshot. */
async function readMolecule(db: Kysely<CatalogDb>, tenantId: string, id: string): Promise<Molecule> {
  const [molecule] = moleculeViews(await selectResolvedMolecules(db, tenantId, { ids: [id] }));
  if (!molecule) throw moleculeNotFound();
  return molecule;
}

/** Creates a molecule with its `molecule.created` event; its entities must be the tenant's (else 404). */
export async function createMolecule(deps: MoleculeDeps, call: CallContext, input: CreateMoleculeBody): Promise<Molecule> {
  const elements = normalizeElements(input.elements);
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    await lockElementEntities(trx, call.tenantId, elements);
    const row = await insertMoleculeRow(trx, { id: newId(), tenantId: call.tenantId, title: input.title });
    await insertElements(trx, call.tenantId, row.id, elements);
    await outboxFor(trx, 'catalog', call).record({
      type: 'molecule.created',
      resourceId: row.id,
      dmrn: null,
      data: { elementCount: elements.length },
    });
    return readMolecule(trx, call.tenantId, row.id);
  });
}

/** A page of the tenant's molecules by id (each with its timeline), within `maxBytes` (the bus reply's budget). */
export async function listMolecules(
  deps: MoleculeDeps,
  call: CallContext,
  query: ListMoleculesQuery,
  maxBytes: number,
): Promise<MoleculePage> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await inTenantScope(deps.db, call.tenantId, (db) =>
    selectResolvedMolecules(db, call.tenantId, { afterId: afterId(query.after), limit: limit + 1 }),
  );
  const { items, nextCursor, hasMore } = idPage(moleculeViews(rows), limit, maxBytes, (molecule) => molecule.id);
  return { molecules: items, nextCursor, hasMore };
}

export async function getMolecule(deps: MoleculeDeps, call: CallContext, id: string): Promise<Molecule> {
  return inTenantScope(deps.db, call.tenantId, (db) => readMolecule(db, call.tenantId, id));
}

const sameElements = (a: readonly NewElement[], b: readonly NewElement[]): boolean =>
  a.length === b.length &&
  a.every((x, i) => x.entityId === b[i]!.entityId && x.kind === b[i]!.kind && x.anchor === b[i]!.anchor && x.offsetMs === b[i]!.offsetMs);

/**
 * Applies a PATCH: a new title, or a new list of elements replacing the old. The new elements'
 * entities are locked first, then the molecule (the order of the entity deletion's cascade). A
 * PATCH that changes nothing writes nothing: no event, `updatedAt` stays.
 */
export async function updateMolecule(deps: MoleculeDeps, call: CallContext, id: string, patch: UpdateMoleculeBody): Promise<Molecule> {
  const elements = patch.elements !== undefined ? normalizeElements(patch.elements) : undefined;
  return inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    if (elements) await lockElementEntities(trx, call.tenantId, elements);
    const current = await findMolecule(trx, call.tenantId, id, { forUpdate: true });
    if (!current) throw moleculeNotFound();
    const stored = (await selectElements(trx, call.tenantId, id)).map((row) => ({
      entityId: row.entity_id,
      kind: row.kind,
      anchor: row.anchor,
      offsetMs: row.offset_ms,
    }));
    const changedFields: MoleculeField[] = [];
    if (patch.title !== undefined && patch.title !== current.title) changedFields.push('title');
    if (elements && !sameElements(elements, stored)) changedFields.push('elements');
    if (changedFields.length === 0) return readMolecule(trx, call.tenantId, id);
    await touchMolecule(trx, call.tenantId, id, changedFields.includes('title') ? { title: patch.title! } : {});
    if (elements && changedFields.includes('elements')) {
      await deleteElements(trx, call.tenantId, id);
      await insertElements(trx, call.tenantId, id, elements);
    }
    await outboxFor(trx, 'catalog', call).record({
      type: 'molecule.updated',
      resourceId: id,
      dmrn: null,
      data: { changedFields, elementCount: elements && changedFields.includes('elements') ? elements.length : stored.length },
    });
    return readMolecule(trx, call.tenantId, id);
  });
}

/** Deletes a molecule (its entities stay) with its `molecule.deleted` event. */
export async function deleteMolecule(deps: MoleculeDeps, call: CallContext, id: string): Promise<void> {
  await inTenantTransaction(deps.db, call.tenantId, async (trx) => {
    if (!(await findMolecule(trx, call.tenantId, id, { forUpdate: true }))) throw moleculeNotFound();
    const elementCount = (await selectElements(trx, call.tenantId, id)).length;
    await deleteMoleculeRow(trx, call.tenantId, id);
    await outboxFor(trx, 'catalog', call).record({
      type: 'molecule.deleted',
      resourceId: id,
      dmrn: null,
      data: { elementCount, reason: 'deleted' },
    });
  });
}
