import { Type, type Static } from '@sinclair/typebox';
import { Line, Page, PageAfter, Uuid } from './common.js';

/**
 * Molecules: a named, ordered composite of entities that plays as one unit (a song with a station
 * ID over its intro, a top-of-hour sequence). Each element resolves to its entity's primary version
 * of its kind; the timeline is computed on every read. The rules are docs/decisions/0137-molecules.md.
 */

/** Fewest and most elements of a molecule. */
export const MIN_MOLECULE_ELEMENTS = 1;
export const MAX_MOLECULE_ELEMENTS = 50;

/** Offsets reach at most a day either way (no broadcast file is longer). */
export const MAX_MOLECULE_OFFSET_MS = 24 * 3600 * 1000;

/** The kinds an element may resolve to: only AUDIO plays in a timeline. */
export const MOLECULE_ELEMENT_KINDS = ['AUDIO'] as const;
export type MoleculeElementKind = (typeof MOLECULE_ELEMENT_KINDS)[number];

/** Where an element's start is measured from (before its offset is added). */
export const MOLECULE_ANCHORS = ['start', 'previous_cue_out', 'previous_next_track_start'] as const;
export type MoleculeAnchor = (typeof MOLECULE_ANCHORS)[number];

/** Why an element has no place in the timeline, or null when it has one. */
export const UNRESOLVED_REASONS = ['no_primary_version', 'unknown_duration'] as const;
export type UnresolvedReason = (typeof UNRESOLVED_REASONS)[number];

/** An id, or a time, with what it names. */
const UuidOf = (description: string) => Type.String({ format: 'uuid', pattern: Uuid.pattern as string, description });
const TimeOf = (description: string) => Type.String({ format: 'date-time', description });

const KIND = 'the kind of version the element plays: AUDIO (the only kind a timeline has)';
const ElementKind = (description = KIND) =>
  Type.Union(
    MOLECULE_ELEMENT_KINDS.map((k) => Type.Literal(k)),
    { description },
  );

const ANCHOR =
  '`start`: from the start of the molecule; `previous_cue_out`: from where the previous playing element ends (its cue_out); ' +
  '`previous_next_track_start`: from the previous playing element’s next-track start (its segue marker, else its end). ' +
  'The first playing element has no previous one: its previous_* anchor is the start of the molecule';
const Anchor = (description = ANCHOR) =>
  Type.Union(
    MOLECULE_ANCHORS.map((a) => Type.Literal(a)),
    { description },
  );

const OFFSET = 'milliseconds added to the anchor; negative overlaps the previous element (not with anchor `start`); a start before 0 is 0';
const OffsetMs = (description = OFFSET) => Type.Integer({ minimum: -MAX_MOLECULE_OFFSET_MS, maximum: MAX_MOLECULE_OFFSET_MS, description });

export const MoleculeElementInput = Type.Object(
  {
    entityId: UuidOf('an entity of the tenant; the element plays its primary version of `kind`'),
    kind: Type.Optional(ElementKind(`${KIND} (default AUDIO)`)),
    offsetMs: Type.Optional(OffsetMs(`${OFFSET} (default 0)`)),
    anchor: Type.Optional(Anchor(`${ANCHOR} (default previous_cue_out)`)),
  },
  { additionalProperties: false },
);
export type MoleculeElementInput = Static<typeof MoleculeElementInput>;

const Title = Line(1, 500, 'the name of the molecule');

const ELEMENTS = `the elements in play order, ${MIN_MOLECULE_ELEMENTS} to ${MAX_MOLECULE_ELEMENTS}; an entity may appear more than once`;
const Elements = (description = ELEMENTS) =>
  Type.Array(MoleculeElementInput, { minItems: MIN_MOLECULE_ELEMENTS, maxItems: MAX_MOLECULE_ELEMENTS, description });

export const CreateMoleculeBody = Type.Object({ title: Title, elements: Elements() }, { additionalProperties: false });
export type CreateMoleculeBody = Static<typeof CreateMoleculeBody>;

export const UpdateMoleculeBody = Type.Object(
  {
    title: Type.Optional(Title),
    elements: Type.Optional(Elements(`${ELEMENTS}; replaces every element`)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateMoleculeBody = Static<typeof UpdateMoleculeBody>;

const NullableMs = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

/** One element as stored, with the place in the timeline it resolves to now. */
export const MoleculeElement = Type.Object({
  position: Type.Integer({ minimum: 0, description: 'index of the element in play order, from 0' }),
  entityId: UuidOf('the entity the element plays'),
  kind: ElementKind(),
  anchor: Anchor(),
  offsetMs: OffsetMs(),
  versionId: Type.Union([Uuid, Type.Null()], { description: 'the entity’s primary version of `kind` now; null when it has none' }),
  cueInMs: NullableMs('where the element starts in its file: the version’s cue_in marker, else 0; null when unresolved'),
  cueOutMs: NullableMs('where the element ends in its file: the cue_out marker, else the file’s duration; null when unresolved'),
  nextTrackStartMs: NullableMs(
    'where in its file the next element may start (anchor previous_next_track_start): the segue marker, else cueOutMs; null when unresolved',
  ),
  startMs: NullableMs('start on the molecule’s timeline, in ms from the molecule’s start; null when unresolved'),
  endMs: NullableMs('end on the molecule’s timeline (startMs + cueOutMs - cueInMs); null when unresolved'),
  unresolved: Type.Union([Type.Union(UNRESOLVED_REASONS.map((r) => Type.Literal(r))), Type.Null()], {
    description:
      'null: the element plays. `no_primary_version`: its entity has no version of `kind`; `unknown_duration`: the primary version’s ' +
      'file has no known duration and no cue_out marker. An unresolved element is skipped: it takes no time and is no “previous” element',
  }),
});
export type MoleculeElement = Static<typeof MoleculeElement>;

export const Molecule = Type.Object({
  id: UuidOf('the molecule’s id (UUIDv7), used in paths as {id}'),
  title: Type.String({ description: 'the name of the molecule' }),
  elements: Type.Array(MoleculeElement, { description: 'in play order, each with its resolved place in the timeline' }),
  durationMs: Type.Integer({ minimum: 0, description: 'the latest endMs of the playing elements (0 when none plays)' }),
  complete: Type.Boolean({ description: 'true when every element plays (none is unresolved)' }),
  createdAt: TimeOf('when the molecule was created'),
  updatedAt: TimeOf('time of the last change of title or elements (not of the versions they resolve to)'),
});
export type Molecule = Static<typeof Molecule>;

export const ListMoleculesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'most molecules in the page' })),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type ListMoleculesQuery = Static<typeof ListMoleculesQuery>;

export const MoleculePage = Page('molecules', Molecule);
export type MoleculePage = Static<typeof MoleculePage>;
