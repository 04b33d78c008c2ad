// @ts-check
/* The library search: words of the title or artist, filters, a table of tracks, more pages by cursor. */
import { call, problem, withQuery } from './api.js';
import { announce, field, h, time } from './dom.js';

/**
 * A track as the listing shows it: the fields the table reads.
 * @typedef {{ entityId: string, entityType: string, title: string, artist: string | null, durationMs: number | null, bpm: number | null, key: string | null, camelot: string | null, integratedLufs: number | null }} TrackSummary
 * @typedef {{ tracks: TrackSummary[], nextCursor: string | null, hasMore: boolean }} TracksPage
 */

const SORTS = ['relevance', 'title', 'artist', 'bpm', 'duration', 'updated'];

/** @param {string} id @param {Record<string, string>} [attributes] */
const input = (id, attributes = {}) => h('input', { id, name: id, ...attributes });

/** The search form's fields, keyed by query parameter. */
function searchFields() {
  return {
    q: input('q', { type: 'search', autocomplete: 'off' }),
    bpmMin: input('bpmMin', { type: 'number', min: '0', max: '1000', step: 'any', inputmode: 'decimal' }),
    bpmMax: input('bpmMax', { type: 'number', min: '0', max: '1000', step: 'any', inputmode: 'decimal' }),
    key: input('key', { type: 'text', autocomplete: 'off' }),
    sort: h(
      'select',
      { id: 'sort', name: 'sort' },
      h('option', { value: '' }, 'default'),
      ...SORTS.map((s) => h('option', { value: s }, s)),
    ),
  };
}

/** @param {TrackSummary} track */
function row(track) {
  const title = h('a', { href: `#/tracks/${track.entityId}` }, track.title);
  return h(
    'tr',
    {},
    h('th', { scope: 'row' }, title),
    h('td', {}, track.artist ?? '–'),
    h('td', {}, time(track.durationMs)),
    h('td', {}, track.bpm === null ? '–' : String(track.bpm)),
    h('td', {}, track.key ?? '–'),
    h('td', {}, track.integratedLufs === null ? '–' : track.integratedLufs.toFixed(1)),
  );
}

function resultsTable() {
  const body = h('tbody');
  const headers = ['Title', 'Artist', 'Duration', 'BPM', 'Key', 'Loudness (LUFS)'];
  const table = h(
    'table',
    { id: 'results' },
    h('caption', {}, 'Tracks'),
    h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))),
    body,
  );
  return { table, body };
}

/**
 * The search view: a form (role search), the results table and a "more" button.
 * @param {HTMLElement} main
 */
export function renderSearch(main) {
  const fields = searchFields();
  const { table, body } = resultsTable();
  const more = h('button', { type: 'button', id: 'more', hidden: true }, 'More tracks');
  const summary = h('p', { id: 'result-summary' });
  /** @type {string | null} */
  let cursor = null;
  /** @type {Record<string, string>} */
  let query = {};
  const load = async (/** @type {boolean} */ next) => {
    try {
      const page = /** @type {TracksPage} */ (
        await call('GET', withQuery('/api/v1/library/tracks', { ...query, limit: 50, after: next ? cursor : null }))
      );
      if (!next) body.replaceChildren();
      body.append(...page.tracks.map(row));
      cursor = page.nextCursor;
      more.hidden = !page.hasMore;
      const count = body.rows.length;
      summary.textContent = count === 0 ? 'No track matches.' : `${count} track${count === 1 ? '' : 's'}${page.hasMore ? ' so far' : ''}.`;
      announce(summary.textContent);
    } catch (error) {
      summary.textContent = problem(error);
      announce(summary.textContent);
    }
  };
  more.addEventListener('click', () => load(true));
  const form = h(
    'form',
    { role: 'search', 'aria-label': 'Search the library', novalidate: true },
    field('Title or artist', fields.q, 'Words of the title or artist; the last word also matches its beginning.'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Filters'),
      field('BPM from', fields.bpmMin),
      field('BPM to', fields.bpmMax),
      field('Key', fields.key, "A key name ('A minor') or a Camelot code ('8A'); several separated by commas."),
      field('Sort by', fields.sort),
    ),
    h('button', { type: 'submit' }, 'Search'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    query = Object.fromEntries(Object.entries(fields).map(([name, element]) => [name, element.value.trim()]));
    void load(false);
  });
  main.replaceChildren(h('h2', { tabindex: '-1' }, 'Library'), form, summary, table, more);
  void load(false);
}
