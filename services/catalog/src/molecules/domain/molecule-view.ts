import type { Molecule, MoleculeElement } from '@catalog/contracts';
import type { ResolvedElementRow } from '../persistence/molecules.js';
import { placeElements } from './timeline.js';

type StoredElement = ResolvedElementRow & { entity_id: string; kind: MoleculeElement['kind']; anchor: MoleculeElement['anchor'] };

const isElement = (row: ResolvedElementRow): row is StoredElement => row.entity_id !== null;

/** The public JSON of one molecule from its rows (one per element, in play order), its timeline resolved. */
function moleculeOf(rows: readonly ResolvedElementRow[]): Molecule {
  const molecule = rows[0]!;
  const stored = rows.filter(isElement);
  const timeline = placeElements(
    stored.map((row) => ({
      anchor: row.anchor,
      offsetMs: row.offset_ms ?? 0,
      version: row.version_id === null ? null : { durationMs: row.duration_ms, markers: row.markers ?? [] },
    })),
  );
  return {
    id: molecule.id,
    title: molecule.title,
    elements: stored.map((row, position) => ({
      position,
      entityId: row.entity_id,
      kind: row.kind,
      anchor: row.anchor,
      offsetMs: row.offset_ms ?? 0,
      versionId: row.version_id,
      ...timeline.elements[position]!,
    })),
    durationMs: timeline.durationMs,
    complete: timeline.complete,
    createdAt: molecule.created_at.toISOString(),
    updatedAt: molecule.updated_at.toISOString(),
  };
}

/** The molecules of `rows` (by molecule, then position, as selectResolvedMolecules reads them), in the order they come. */
export function moleculeViews(rows: readonly ResolvedElementRow[]): Molecule[] {
  const byId = new Map<string, ResolvedElementRow[]>();
  for (const row of rows) {
    const group = byId.get(row.id);
    if (group) group.push(row);
    else byId.set(row.id, [row]);
  }
  return [...byId.values()].map(moleculeOf);
}
