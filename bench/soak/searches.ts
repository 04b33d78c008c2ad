import { requestJson } from '../support/setup.js';
import { timed, type LatencyBook } from './latency.js';
import type { Station } from './stations.js';
import { TITLE_WORDS } from './writes.js';

/**
 * Library searches at a steady rate, each station in turn, three classes: a whole word of the
 * titles, a 3-letter prefix of one, and a word with filters (entity type, no DMRN, by title).
 */
export interface Searches {
  stop(): void;
}

export function startSearches(base: string, stations: readonly Station[], perSecond: number, book: LatencyBook): Searches {
  let n = 0;
  const timer = setInterval(() => {
    n += 1;
    const station = stations[n % stations.length]!;
    const word = TITLE_WORDS[n % TITLE_WORDS.length]!;
    const [requestClass, query] = (
      [
        ['search.word', `q=${word}`],
        ['search.prefix', `q=${word.slice(0, 3)}`],
        ['search.filter', `q=${word}&entityType=song&hasDmrn=false&sort=title`],
      ] as const
    )[n % 3]!;
    void timed(book, requestClass, () =>
      requestJson('GET', `${base}/api/v1/library/tracks?${query}&limit=20`, { authorization: `Bearer ${station.key}` }),
    );
  }, 1000 / perSecond);
  return { stop: () => clearInterval(timer) };
}
