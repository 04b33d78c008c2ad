import type { TrackSort, TrackSummary } from '@catalog/contracts';
import { sql, type RawBuilder } from 'kysely';
import { unprepared, type Kysely } from '@catalog/platform';
import type { LibraryDb } from './tables.js';

/** Where the previous page ended: its last track's sort value and entity id. */
export interface TrackKey {
  value: string | number | null;
  entityId: string;
}

/** A listing request once its parameters are checked and resolved (decision 0101). */
export interface TrackSearch {
  tenantId: string;
  /** `to_tsquery('simple', …)` text of `q`, or null. */
  tsQuery: string | null;
  /** The words of `q` (folded; the last one matched as a prefix), the same `tsQuery` is made of. */
  words: string[];
  filters: {
    bpmMin?: number;
    bpmMax?: number;
    camelot: string[] | null;
    loudnessMin?: number;
    loudnessMax?: number;
    durationMinMs?: number;
    durationMaxMs?: number;
    entityType?: string;
    hasDmrn?: boolean;
    /** Tracks related (any type, either direction) to this entity (decision 0136). */
    relatedTo?: string;
    /** Tracks assigned to this playout integration (decision 0132). */
    integrationId?: string;
    /** Tracks with an assignment in this sync state (of `integrationId` when given). */
    syncState?: string;
    updatedSince?: Date;
  };
  sort: TrackSort;
  descending: boolean;
  after: TrackKey | null;
  /** Rows to read: the page's limit plus one (to know whether more follow). */
  take: number;
}

export interface FoundTrack {
  summary: TrackSummary;
  key: TrackKey;
}

/** The sort key of each sort, as SQL over the tracks table, and how a cursor value is cast back. */
function sortKey(search: TrackSearch): { expr: RawBuilder<unknown>; cast: string; nullable: boolean } {
  switch (search.sort) {
    case 'relevance':
      return { expr: sql.ref('c.rank'), cast: 'real', nullable: false };
    case 'title':
      return { expr: sql.ref('title_sort'), cast: 'text', nullable: false };
    case 'artist':
      return { expr: sql.ref('artist_sort'), cast: 'text', nullable: true };
    case 'bpm':
      return { expr: sql.ref('bpm'), cast: 'double precision', nullable: true };
    case 'duration':
      return { expr: sql.ref('duration_ms'), cast: 'integer', nullable: true };
    case 'updated':
      return { expr: sql.ref('updated_at'), cast: 'timestamptz', nullable: false };
  }
}

/**
 * The conditions of the filters that `library.track_words` holds copies of (decision 0112); the
 * same columns, with the same names, in both tables.
 */
function copiedFilterConditions(search: TrackSearch): RawBuilder<unknown>[] {
  const f = search.filters;
  const conditions: RawBuilder<unknown>[] = [];
  if (f.bpmMin !== undefined) conditions.push(sql`bpm >= ${f.bpmMin}`);
  if (f.bpmMax !== undefined) conditions.push(sql`bpm <= ${f.bpmMax}`);
  if (f.camelot !== null) conditions.push(sql`camelot = any(${f.camelot}::text[])`);
  if (f.loudnessMin !== undefined) conditions.push(sql`integrated_lufs >= ${f.loudnessMin}`);
  if (f.loudnessMax !== undefined) conditions.push(sql`integrated_lufs <= ${f.loudnessMax}`);
  if (f.durationMinMs !== undefined) conditions.push(sql`duration_ms >= ${f.durationMinMs}`);
  if (f.durationMaxMs !== undefined) conditions.push(sql`duration_ms <= ${f.durationMaxMs}`);
  if (f.entityType !== undefined) conditions.push(sql`entity_type = ${f.entityType}`);
  if (f.hasDmrn !== undefined) conditions.push(sql`has_dmrn = ${f.hasDmrn}`);
  return conditions;
}

/** The rows of `library.track_words` holding `word` (as a prefix: a word it starts), already narrowed by the copied filters. */
function wordRows(
  search: TrackSearch,
  word: string,
  prefix: boolean,
  columns: RawBuilder<unknown>,
  also: RawBuilder<unknown>[] = [],
): RawBuilder<unknown> {
  const match = prefix ? sql`word ^@ ${word}` : sql`word = ${word}`;
  const where = sql.join([sql`tenant_id = ${search.tenantId}`, match, ...copiedFilterConditions(search), ...also], sql` and `);
  return sql`select ${columns} from library.track_words where ${where}`;
}

/**
 * The tracks holding every word of `q` (decisions 0105, 0112): found in `track_words` (equality,
 * the last word `^@`, starts with: leakproof operators an index serves under row-level security),
 * each word's rows already narrowed by the filters whose columns they carry (read from the primary
 * key's INCLUDE part), and read by primary key (`= any(array(…))`, so the planner never trades the
 * lookups for a scan of the tenant's tracks).
 */
function candidateCondition(search: TrackSearch): RawBuilder<unknown> {
  const last = search.words.length - 1;
  const byWord = search.words.map((word, i) => wordRows(search, word, i === last, sql`entity_id`));
  return sql`entity_id = any(array(${sql.join(byWord, sql` intersect `)}))`;
}

/** The tracks assigned to an integration and/or in a sync state, from `library.assignments` (decision 0132). */
function assignmentCondition(search: TrackSearch): RawBuilder<unknown> | null {
  const { integrationId, syncState } = search.filters;
  if (integrationId === undefined && syncState === undefined) return null;
  const where = [sql`a.tenant_id = ${search.tenantId}`, sql`a.sync_state is not null`];
  if (integrationId !== undefined) where.push(sql`a.integration_id = ${integrationId}::uuid`);
  if (syncState !== undefined) where.push(sql`a.sync_state = ${syncState}`);
  return sql`entity_id in (select a.entity_id from library.assignments a where ${sql.join(where, sql` and `)})`;
}

/** The tracks that have a relation (not deleted) with the entity `relatedTo`, from `library.relations` (decision 0136). */
function relatedCondition(search: TrackSearch): RawBuilder<unknown> | null {
  const { relatedTo } = search.filters;
  if (relatedTo === undefined) return null;
  const tenant = sql`tenant_id = ${search.tenantId}`;
  return sql`entity_id = any(array(
    select target_id from library.relations where ${tenant} and source_id = ${relatedTo}::uuid and not deleted
    union
    select source_id from library.relations where ${tenant} and target_id = ${relatedTo}::uuid and not deleted))`;
}

/** The conditions a track itself must meet: its tenant, `@@` (the exact check of `q`) and every filter. */
function trackConditions(search: TrackSearch): RawBuilder<unknown>[] {
  const conditions: RawBuilder<unknown>[] = [sql`tenant_id = ${search.tenantId}`, ...copiedFilterConditions(search)];
  if (search.tsQuery !== null) conditions.push(sql`search @@ to_tsquery('simple', ${search.tsQuery})`);
  if (search.filters.updatedSince !== undefined) conditions.push(sql`updated_at >= ${search.filters.updatedSince}`);
  const related = relatedCondition(search);
  if (related) conditions.push(related);
  const assigned = assignmentCondition(search);
  if (assigned) conditions.push(assigned);
  return conditions;
}

/**
 * The terms of `q` as `ts_rank` counts them (each distinct whole word once, the last word a
 * prefix), with each track's relevance: the mean over the terms of the weights of its words that
 * match them (decision 0169), from `track_words` alone; only tracks matching every term.
 */
function rankedCandidates(search: TrackSearch): RawBuilder<unknown> {
  const last = search.words.length - 1;
  const terms = [...new Set(search.words.slice(0, last))].map((word) => ({ word, prefix: false }));
  terms.push({ word: search.words[last] ?? '', prefix: true });
  // The other terms' rows only of tracks holding the first term (a whole word when there are several): a short prefix
  // matches many more rows than the tracks that also hold the word. Each term a bit: a track holds them all when its
  // rows' bits make every one (a hash aggregate, unlike count(distinct)).
  const first = terms[0]!;
  const holdingFirst = sql`entity_id in (${wordRows(search, first.word, first.prefix, sql`entity_id`)})`;
  const rows = terms.map((term, i) =>
    wordRows(search, term.word, term.prefix, sql`entity_id, weight, ${sql.lit(2 ** i)} as term`, i === 0 ? [] : [holdingFirst]),
  );
  const every = terms.length > 1 ? sql`having bit_or(term) = ${sql.lit(2 ** terms.length - 1)}` : sql``;
  // Summed in double precision, exactly and so in any order: a track's rank is the same on every page.
  return sql`select entity_id, (sum(weight::float8) / ${sql.lit(terms.length)})::real as rank
    from (${sql.join(rows, sql` union all `)}) w group by entity_id ${every}`;
}

/**
 * The keyset condition: the rows after the cursor in `order by (key is null), key, entity_id`
 * (tracks without the value come last in both directions; the entity id breaks ties).
 */
function afterCondition(search: TrackSearch, key: ReturnType<typeof sortKey>, entityId: RawBuilder<unknown>): RawBuilder<unknown> | null {
  const after = search.after;
  if (after === null) return null;
  const cmp = sql.raw(search.descending ? '<' : '>');
  if (after.value === null) return sql`(${key.expr} is null and ${entityId} ${cmp} ${after.entityId}::uuid)`;
  const value = sql`${after.value}::${sql.raw(key.cast)}`;
  const tuple = sql`(${key.expr}, ${entityId}) ${cmp} (${value}, ${after.entityId}::uuid)`;
  return key.nullable ? sql`(${key.expr} is null or ${tuple})` : sql`(${tuple})`;
}

/** The order of the rows: `order by (key is null), key, entity_id`, in the request's direction. */
function orderBy(search: TrackSearch, key: ReturnType<typeof sortKey>, entityId: RawBuilder<unknown>): RawBuilder<unknown> {
  const dir = sql.raw(search.descending ? 'desc' : 'asc');
  return key.nullable ? sql`(${key.expr} is null), ${key.expr} ${dir}, ${entityId} ${dir}` : sql`${key.expr} ${dir}, ${entityId} ${dir}`;
}

type Row = { entity_id: string; summary: TrackSummary; sort_value: string | number | null };

/**
 * sort=relevance (decision 0169): the candidates are ranked in `track_words` alone, and the tracks
 * read one at a time in that order (a lateral lookup by primary key, which the limit stops) until
 * the page is full, each checked by `@@` and every filter under row-level security: a page reads
 * about `take` tracks, not every track holding the words.
 */
function relevanceQuery(search: TrackSearch) {
  const key = sortKey(search);
  const after = afterCondition(search, key, sql.ref('c.entity_id'));
  const candidates = rankedCandidates(search);
  return sql<Row>`
    select c.entity_id, t.summary, c.rank as sort_value
    from (select * from (${candidates}) c ${after ? sql`where ${after}` : sql``}
          order by ${orderBy(search, key, sql.ref('c.entity_id'))}) c
    cross join lateral (
      select summary from library.tracks
      where entity_id = c.entity_id and ${sql.join(trackConditions(search), sql` and `)}
      limit 1) t
    order by ${orderBy(search, key, sql.ref('c.entity_id'))}
    limit ${search.take}`;
}

/** Every other sort: the tracks passing the conditions (those holding `q`'s words first found in `track_words`), sorted. */
function sortedQuery(search: TrackSearch) {
  const key = sortKey(search);
  const conditions = trackConditions(search);
  if (search.tsQuery !== null) conditions.unshift(candidateCondition(search));
  const after = afterCondition(search, key, sql.ref('entity_id'));
  if (after) conditions.push(after);
  const keyText = search.sort === 'updated' ? sql`to_json(${key.expr})` : key.expr;
  return sql<Row>`
    select entity_id, summary, ${keyText} as sort_value
    from library.tracks
    where ${sql.join(conditions, sql` and `)}
    order by ${orderBy(search, key, sql.ref('entity_id'))}
    limit ${search.take}`;
}

/** The statement of one page (at most `take` rows) of the tenant's tracks in the requested order. */
export function trackSearchQuery(search: TrackSearch): RawBuilder<Row> {
  return search.sort === 'relevance' && search.tsQuery !== null ? relevanceQuery(search) : sortedQuery(search);
}

/** One page of the tenant's tracks in the requested order (at most `take` rows). */
export async function searchTracks(db: Kysely<LibraryDb>, search: TrackSearch): Promise<FoundTrack[]> {
  const query = trackSearchQuery(search);
  // Never a named prepared statement: a generic plan (made without the words and ranges) would
  // read the tenant's tracks by a range index and test every word on each (decisions 0105, 0110).
  const { rows } = await query.execute(unprepared(db));
  return rows.map((row) => ({ summary: row.summary, key: { value: row.sort_value, entityId: row.entity_id } }));
}
