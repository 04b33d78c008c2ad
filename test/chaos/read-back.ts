import type { ApiClient } from '@catalog/testing';

/** What a client of the public API reads back once the faults are over. */
export interface FeedEventSummary {
  id: string;
  type: string;
  resourceId: string | null;
}

const MAX_PAGES = 1_000;

/** Every entity of the key's tenant, id → title, through `GET /entities` (keyset pages of 200). */
export async function listEveryEntity(api: ApiClient, key: string): Promise<Map<string, string>> {
  const entities = new Map<string, string>();
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query: string = after ? `limit=200&after=${encodeURIComponent(after)}` : 'limit=200';
    const response = await api.request('GET', `/api/v1/catalog/entities?${query}`, { key });
    if (response.status !== 200) throw new Error(`listing entities: ${response.status} ${JSON.stringify(response.body)}`);
    for (const entity of response.body.entities as Array<{ id: string; title: string }>) entities.set(entity.id, entity.title);
    if (!response.body.hasMore) return entities;
    after = response.body.nextCursor;
  }
  throw new Error(`more than ${MAX_PAGES} pages of entities`);
}

/** The tenant's whole events feed, page by page (500 a page), as a client polls it. */
export async function readWholeFeed(api: ApiClient, key: string): Promise<FeedEventSummary[][]> {
  const pages: FeedEventSummary[][] = [];
  let after: string | null = null;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query: string = after ? `limit=500&after=${encodeURIComponent(after)}` : 'limit=500';
    const response = await api.request('GET', `/api/v1/catalog/events?${query}`, { key });
    if (response.status !== 200) throw new Error(`reading the feed: ${response.status} ${JSON.stringify(response.body)}`);
    pages.push((response.body.events as FeedEventSummary[]).map(({ id, type, resourceId }) => ({ id, type, resourceId })));
    if (!response.body.hasMore) return pages;
    after = response.body.nextCursor;
  }
  throw new Error(`more than ${MAX_PAGES} pages of events`);
}

/** The values that occur more than once, with their counts. */
export function repeated(values: Iterable<string>): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].filter(([, count]) => count > 1);
}
