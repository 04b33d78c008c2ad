import { MARKER_TYPES, SINGULAR_MARKER_TYPES, type AssetKind, type Marker, type MarkerType } from '@catalog/contracts';
import { badRequest, fieldDetails } from '@catalog/platform';

interface Violation {
  location: 'body';
  path: string;
  message: string;
}

const SINGULAR = new Set<string>(SINGULAR_MARKER_TYPES);
const TYPE_ORDER = new Map<string, number>(MARKER_TYPES.map((type, index) => [type, index]));

/** Markers in position order (then type order, then label), as stored and listed. */
export function sortMarkers(markers: readonly Marker[]): Marker[] {
  return [...markers].sort(
    (a, b) =>
      a.positionMs - b.positionMs ||
      (TYPE_ORDER.get(a.type) ?? 0) - (TYPE_ORDER.get(b.type) ?? 0) ||
      (a.label ?? '').localeCompare(b.label ?? ''),
  );
}

/**
 * Checks a whole set of markers of a version against each other and against the file's duration
 * (when known), and returns them sorted. Rules (docs/decisions/0024-versions.md):
 * - ARTWORK versions have no markers;
 * - each singular type (cue_in, intro_end, hook_start, hook_end, outro_start, segue, cue_out) at
 *   most once; `custom` may repeat and needs a label;
 * - cue_in < cue_out; hook_start < hook_end and one needs the other; intro_end ≤ outro_start;
 * - every other marker lies within [cue_in, cue_out] when those are set;
 * - every position ≤ the duration, when the duration is known.
 * Violations: 400 invalid_markers with the offending markers in `details.fields` (the first 20).
 */
export function validateMarkers(markers: readonly Marker[], file: { kind: AssetKind; durationMs: number | null }): Marker[] {
  if (file.kind === 'ARTWORK' && markers.length > 0) {
    throw badRequest('markers_not_supported', 'ARTWORK versions have no markers', {
      fields: [{ location: 'body', path: '/markers', message: 'must be empty for an ARTWORK version' }],
    });
  }
  const violations: Violation[] = [];
  const at = (index: number, field: string, message: string): void => {
    violations.push({ location: 'body', path: `/markers/${index}${field}`, message });
  };
  const first = new Map<MarkerType, number>();
  markers.forEach((marker, index) => {
    if (SINGULAR.has(marker.type)) {
      if (first.has(marker.type)) at(index, '/type', `only one ${marker.type} marker is allowed`);
      else first.set(marker.type, index);
    }
    if (marker.type === 'custom' && marker.label === undefined) at(index, '/label', 'is required for a custom marker');
    if (file.durationMs !== null && marker.positionMs > file.durationMs) {
      at(index, '/positionMs', `must not be after the end of the file (${file.durationMs} ms)`);
    }
  });
  const position = (type: MarkerType): number | undefined => {
    const index = first.get(type);
    return index === undefined ? undefined : markers[index]?.positionMs;
  };
  const ordered = (before: MarkerType, after: MarkerType, strict: boolean): void => {
    const a = position(before);
    const b = position(after);
    if (a === undefined || b === undefined) return;
    if (strict ? a >= b : a > b) at(first.get(after)!, '/positionMs', `must be ${strict ? 'after' : 'at or after'} ${before} (${a} ms)`);
  };
  ordered('cue_in', 'cue_out', true);
  ordered('hook_start', 'hook_end', true);
  ordered('intro_end', 'outro_start', false);
  for (const [one, other] of [
    ['hook_start', 'hook_end'],
    ['hook_end', 'hook_start'],
  ] as const) {
    if (first.has(one) && !first.has(other)) at(first.get(one)!, '/type', `${one} needs a ${other} marker`);
  }
  const cueIn = position('cue_in');
  const cueOut = position('cue_out');
  markers.forEach((marker, index) => {
    if (marker.type === 'cue_in' || marker.type === 'cue_out') return;
    if (cueIn !== undefined && marker.positionMs < cueIn) at(index, '/positionMs', `must not be before cue_in (${cueIn} ms)`);
    if (cueOut !== undefined && marker.positionMs > cueOut) at(index, '/positionMs', `must not be after cue_out (${cueOut} ms)`);
  });
  if (violations.length > 0) {
    throw badRequest('invalid_markers', 'the markers break the marker rules', {
      ...fieldDetails(violations),
      ...(file.durationMs !== null ? { durationMs: file.durationMs } : {}),
    });
  }
  return sortMarkers(markers);
}
