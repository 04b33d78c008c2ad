import { createHash } from 'node:crypto';
import type { ListTracksQuery, TrackSort, TracksPage } from '@catalog/contracts';
import { badRequest, fitPage, inTenantScope, type Kysely } from '@catalog/platform';
import { searchTracks, type TrackSearch } from '../persistence/track-search.js';
import type { LibraryDb } from '../persistence/tables.js';
import { keyFilter } from './keys.js';
import type { TrackCursors } from './track-cursor.js';
import { typeAheadQuery, wordsOf } from './text.js';

/** Room for what surrounds the tracks in a page: `{"tracks":[`, the cursor, `hasMore`. */
const PAGE_FRAME_BYTES = 1024;

const fingerprint = (q: string | undefined): string =>
  q === undefined ? '' : createHash('sha256').update(wordsOf(q).join(' ')).digest('base64url').slice(0, 16);

/** The resolved sort and order of a request (decision 0101): relevance needs q and is best first. */
function sortOf(query: ListTracksQuery, tsQuery: string | null): { sort: TrackSort; descending: boolean } {
  const sort = query.sort ?? (tsQuery !== null ? 'relevance' : 'title');
  if (sort === 'relevance') {
    if (tsQuery === null) throw badRequest('invalid_query', 'sort=relevance needs q with at least one word', { parameter: 'sort' });
    return { sort, descending: true };
  }
  return { sort, descending: (query.order ?? (sort === 'updated' ? 'desc' : 'asc')) === 'desc' };
}

function checkRanges(query: ListTracksQuery): void {
  const ranges: Array<[keyof ListTracksQuery, keyof ListTracksQuery]> = [
    ['bpmMin', 'bpmMax'],
    ['loudnessMin', 'loudnessMax'],
    ['durationMinMs', 'durationMaxMs'],
  ];
  for (const [min, max] of ranges) {
    const [lo, hi] = [query[min], query[max]];
    if (typeof lo === 'number' && typeof hi === 'number' && lo > hi) {
      throw badRequest('invalid_query', `${min} must not exceed ${max}`, { parameter: min });
    }
  }
  if (query.harmonic !== undefined && query.key === undefined) {
    throw badRequest('invalid_query', 'harmonic needs key', { parameter: 'harmonic' });
  }
}

/** What the listing reads with: the tracks, and the cursors it resumes from and hands out. */
export interface TrackListingDeps {
  db: Kysely<LibraryDb>;
  cursors: TrackCursors;
}

/** `listTracks`: a page of the tenant's tracks, searched, filtered, sorted and keyset paginated, within `maxBytes`. */
export async function listTracks(deps: TrackListingDeps, tenantId: string, query: ListTracksQuery, maxBytes: number): Promise<TracksPage> {
  checkRanges(query);
  const tsQuery = query.q === undefined ? null : typeAheadQuery(query.q);
  if (query.q !== undefined && tsQuery === null) {
    throw badRequest('invalid_query', 'q must hold at least one letter or digit', { parameter: 'q' });
  }
  const { sort, descending } = sortOf(query, tsQuery);
  const q = sort === 'relevance' ? fingerprint(query.q) : '';
  let after: TrackSearch['after'] = null;
  if (query.after !== undefined) {
    const cursor = deps.cursors.decode(tenantId, query.after);
    if (cursor.s !== sort || cursor.o !== (descending ? 'd' : 'a') || cursor.q !== q) {
      throw badRequest('invalid_cursor', 'the cursor belongs to another sort, order or search; start again without after', {
        parameter: 'after',
      });
    }
    after = { value: cursor.k, entityId: cursor.i };
  }
  const limit = query.limit ?? 50;
  const { q: _q, key, harmonic, sort: _s, order: _o, limit: _l, after: _a, updatedSince, ...ranges } = query;
  if (updatedSince !== undefined && Number.isNaN(Date.parse(updatedSince))) {
    throw badRequest('invalid_query', 'updatedSince must be an RFC 3339 date-time', { parameter: 'updatedSince' });
  }
  const found = await inTenantScope(deps.db, tenantId, (scoped) =>
    searchTracks(scoped, {
      tenantId,
      tsQuery,
      words: query.q === undefined ? [] : wordsOf(query.q),
      filters: {
        ...ranges,
        camelot: keyFilter(key, harmonic),
        ...(updatedSince === undefined ? {} : { updatedSince: new Date(updatedSince) }),
      },
      sort,
      descending,
      after,
      take: limit + 1,
    }),
  );
  const page = fitPage(found, limit, maxBytes - PAGE_FRAME_BYTES);
  // The rows measured hold their sort keys too: a little more than the page, never less.
  const last = page.items[page.items.length - 1];
  const nextCursor =
    page.hasMore && last
      ? deps.cursors.encode(tenantId, { s: sort, o: descending ? 'd' : 'a', q, k: last.key.value, i: last.key.entityId })
      : null;
  return { tracks: page.items.map((t) => t.summary), nextCursor, hasMore: page.hasMore };
}
