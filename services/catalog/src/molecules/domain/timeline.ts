import type { Marker, MoleculeAnchor, UnresolvedReason } from '@catalog/contracts';

/**
 * The timeline arithmetic of a molecule (decision 0137), a pure function of its elements and the
 * primary versions they resolve to now. All values are milliseconds.
 */

/** What the timeline needs of an element's primary version: its file's duration and its markers. */
export interface TimelineVersion {
  durationMs: number | null;
  markers: readonly Marker[];
}

export interface TimelineInput {
  anchor: MoleculeAnchor;
  offsetMs: number;
  /** The entity's primary version of the element's kind, or null when it has none. */
  version: TimelineVersion | null;
}

/** Where an element plays: within its file (cue points) and on the molecule's timeline. */
export interface PlacedElement {
  cueInMs: number | null;
  cueOutMs: number | null;
  nextTrackStartMs: number | null;
  startMs: number | null;
  endMs: number | null;
  unresolved: UnresolvedReason | null;
}

export interface Timeline {
  elements: PlacedElement[];
  /** The latest end of the playing elements; 0 when none plays. */
  durationMs: number;
  /** Every element plays. */
  complete: boolean;
}

interface Cues {
  cueInMs: number;
  cueOutMs: number;
  nextTrackStartMs: number;
}

const clamp = (value: number, low: number, high: number): number => Math.min(Math.max(value, low), high);

const positionOf = (markers: readonly Marker[], type: Marker['type']): number | undefined =>
  markers.find((marker) => marker.type === type)?.positionMs;

/**
 * The cue points of a version within its file: cue_in (else 0), cue_out (else the file's
 * duration), and the next-track start: segue (else cue_out). Each is kept within the file and in
 * that order (markers set before the duration was known may lie past it). Undefined when neither
 * a cue_out marker nor the duration says where the element ends.
 */
export function cuesOf(version: TimelineVersion): Cues | undefined {
  const end = version.durationMs ?? Number.POSITIVE_INFINITY;
  const cueOut = positionOf(version.markers, 'cue_out') ?? version.durationMs;
  if (cueOut === null) return undefined;
  const cueOutMs = clamp(cueOut, 0, end);
  const cueInMs = clamp(positionOf(version.markers, 'cue_in') ?? 0, 0, cueOutMs);
  const nextTrackStartMs = clamp(positionOf(version.markers, 'segue') ?? cueOutMs, cueInMs, cueOutMs);
  return { cueInMs, cueOutMs, nextTrackStartMs };
}

const unresolved = (reason: UnresolvedReason): PlacedElement => ({
  cueInMs: null,
  cueOutMs: null,
  nextTrackStartMs: null,
  startMs: null,
  endMs: null,
  unresolved: reason,
});

/** The point of the timeline an anchor names, given the previous playing element (if any). */
function anchorPoint(anchor: MoleculeAnchor, previous: (PlacedElement & Cues & { startMs: number; endMs: number }) | undefined): number {
  if (anchor === 'start' || previous === undefined) return 0;
  if (anchor === 'previous_cue_out') return previous.endMs;
  return previous.startMs + (previous.nextTrackStartMs - previous.cueInMs);
}

/**
 * Places the elements in order. An element starts at its anchor plus its offset, never before
 * the molecule's start (0), and plays from its cue in to its cue out. An element without a primary
 * version, or whose end is unknown, is unresolved: it takes no time and is skipped as “previous”:
 * the next element anchors on the last element before it that plays.
 */
export function placeElements(inputs: readonly TimelineInput[]): Timeline {
  let previous: (PlacedElement & Cues & { startMs: number; endMs: number }) | undefined;
  const elements = inputs.map((input): PlacedElement => {
    if (input.version === null) return unresolved('no_primary_version');
    const cues = cuesOf(input.version);
    if (cues === undefined) return unresolved('unknown_duration');
    const startMs = Math.max(0, anchorPoint(input.anchor, previous) + input.offsetMs);
    const placed = { ...cues, startMs, endMs: startMs + (cues.cueOutMs - cues.cueInMs), unresolved: null };
    previous = placed;
    return placed;
  });
  const ends = elements.flatMap((element) => (element.endMs === null ? [] : [element.endMs]));
  return {
    elements,
    durationMs: ends.length === 0 ? 0 : Math.max(...ends),
    complete: elements.every((element) => element.unresolved === null),
  };
}
