import { Type, type Static } from '@sinclair/typebox';
import { Line, PageAfter, Uuid } from './common.js';

/**
 * Relations between entities (decision 0136): typed and directed, after MusicBrainz's
 * relationships between recordings and works. `source` is the entity the relation is said of
 * ("A remix_of B": A is the source, B the target).
 */

/** The relation types, each with its meaning (the source, then the target). */
export const RELATION_TYPES = ['remix_of', 'cover_of', 'edit_of', 'samples', 'part_of', 'same_work_as', 'jingle_for'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

/** Types that hold both ways: stored once, listed from both ends, one per pair. */
export const SYMMETRIC_RELATION_TYPES: readonly RelationType[] = ['same_work_as'];

/**
 * Types whose relations may form no cycle, in groups: a cycle of relations of one group is refused
 * (containment: `part_of`; derivation: `remix_of` and `edit_of` together).
 */
export const ACYCLIC_RELATION_GROUPS: ReadonlyArray<readonly RelationType[]> = [['part_of'], ['remix_of', 'edit_of']];

export const RelationTypeSchema = Type.Union(
  RELATION_TYPES.map((t) => Type.Literal(t)),
  {
    description:
      'remix_of: the source is a remix of the target; cover_of: a cover (another performer) of the target; edit_of: an edit (radio edit, shortened or clean version) of the target; ' +
      'samples: the source contains a sample of the target; part_of: the source is a part of the target (a jingle of a jingle package, a track of a release); ' +
      'same_work_as: both are recordings of one work (symmetric); jingle_for: the source is a jingle, station ID or liner made for the target (a show, a station). ' +
      'part_of, remix_of and edit_of form no cycle (remix_of and edit_of together)',
  },
);

/** An entity id, described. */
const EntityId = (description: string) => Type.String({ format: 'uuid', pattern: Uuid.pattern!, description });

/** Most attributes a relation carries. */
export const MAX_RELATION_ATTRIBUTES = 10;

const AttributeValue = Type.Union(
  [Line(0, 200, 'a text value'), Type.Number({ description: 'a number' }), Type.Boolean({ description: 'a flag' })],
  {
    description: 'a line of text (at most 200 characters), a number or a boolean',
  },
);

export const RelationAttributes = Type.Record(Type.String({ pattern: '^[a-z][A-Za-z0-9_]{0,39}$' }), AttributeValue, {
  maxProperties: MAX_RELATION_ATTRIBUTES,
  additionalProperties: false,
  description:
    'small facts of the relation, e.g. {"position": 3} for part_of, {"startMs": 12000} for samples, {"partial": true}; ' +
    'at most 10, names of 1-40 letters, digits or _ starting with a lower-case letter',
});
export type RelationAttributes = Static<typeof RelationAttributes>;

/** Where the listed entity stands in a relation. */
export const RELATION_DIRECTIONS = ['outgoing', 'incoming', 'symmetric'] as const;
export type RelationDirection = (typeof RELATION_DIRECTIONS)[number];

export const Relation = Type.Object({
  id: Uuid,
  type: RelationTypeSchema,
  sourceId: EntityId('the entity the relation is said of (of a symmetric type: the one it was created on)'),
  targetId: EntityId('the entity it points at'),
  direction: Type.Union(
    RELATION_DIRECTIONS.map((d) => Type.Literal(d)),
    {
      description:
        'seen from the entity of the path: outgoing (it is the source), incoming (it is the target), symmetric (a symmetric type, either end)',
    },
  ),
  attributes: RelationAttributes,
  createdAt: Type.String({ format: 'date-time', description: 'when the relation was created' }),
});
export type Relation = Static<typeof Relation>;

export const CreateRelationBody = Type.Object(
  {
    type: RelationTypeSchema,
    targetId: EntityId('the other entity (of the same tenant; not the entity itself)'),
    attributes: Type.Optional(RelationAttributes),
  },
  { additionalProperties: false },
);
export type CreateRelationBody = Static<typeof CreateRelationBody>;

/** Most relations one page of the listing holds. */
const MAX_RELATIONS_PAGE = 200;

export const ListRelationsQuery = Type.Object(
  {
    direction: Type.Optional(
      Type.Union([Type.Literal('outgoing'), Type.Literal('incoming'), Type.Literal('both')], {
        description:
          'outgoing: relations the entity is the source of; incoming: the target of; both (the default). Symmetric relations are listed under each',
      }),
    ),
    type: Type.Optional(RelationTypeSchema),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RELATIONS_PAGE, default: 50, description: 'most relations in the page' })),
    after: PageAfter,
  },
  { additionalProperties: false },
);
export type ListRelationsQuery = Static<typeof ListRelationsQuery>;

export const RelationList = Type.Object({
  relations: Type.Array(Relation, { description: 'oldest first' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as `after` for the next page; null when there is none' }),
  hasMore: Type.Boolean({ description: 'another page follows' }),
});
export type RelationList = Static<typeof RelationList>;

export const RelationParams = Type.Object({ id: Uuid, relationId: Uuid });

/** Most relations a library track shows (the catalog's listing has them all). */
export const MAX_TRACK_RELATIONS = 100;

/** A relation of a library track, seen from the track's entity. */
export const TrackRelation = Type.Object({
  relationId: Uuid,
  type: RelationTypeSchema,
  direction: Type.Union(
    RELATION_DIRECTIONS.map((d) => Type.Literal(d)),
    { description: 'outgoing: the track is the source; incoming: the target; symmetric: a symmetric type' },
  ),
  entityId: EntityId('the other entity of the relation'),
  title: Type.Union([Type.String(), Type.Null()], {
    description: "the other entity's title (kept current when it is renamed); null until the library has read that entity",
  }),
});
export type TrackRelation = Static<typeof TrackRelation>;
