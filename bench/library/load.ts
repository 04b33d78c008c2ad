/**
 * The library's tracks of bench/library, loaded straight into library.tracks (the read model the
 * listing reads) with generate_series: a station group's size without a write per track.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

/** 2,000 made-up words from syllables, the same every run. */
export function vocabulary(): string[] {
  const syllables = [
    'ka',
    'lo',
    'mi',
    're',
    'su',
    'ta',
    'ne',
    'vo',
    'ri',
    'da',
    'po',
    'li',
    'ma',
    'zu',
    'fe',
    'go',
    'ha',
    'ju',
    'be',
    'sa',
  ];
  const words: string[] = [];
  for (let i = 0; words.length < 2000; i += 1) {
    const h = createHash('md5').update(String(i)).digest();
    words.push(Array.from({ length: 2 + (h[0]! % 2) }, (_, k) => syllables[h[k + 1]! % syllables.length]).join(''));
  }
  return words;
}

/** Loads `count` tracks of a tenant straight into library.tracks (the read model the listing reads). */
async function loadTracks(owner: pg.Client, tenantId: string, count: number, words: string[]): Promise<void> {
  await owner.query(
    `insert into library.tracks (tenant_id, entity_id, entity_type, title_sort, artist_sort, has_dmrn, duration_ms, bpm, camelot,
                                 integrated_lufs, search, summary, detail, listed_at, updated_at)
     select $1::uuid, t.id, t.type, t.title, t.artist, g % 3 = 0, t.duration, t.bpm, t.camelot, t.lufs,
            setweight(to_tsvector('simple', t.title), 'A') || setweight(to_tsvector('simple', t.artist), 'B'),
            jsonb_build_object('entityId', t.id, 'entityType', t.type, 'title', t.title, 'artist', t.artist,
              'externalReferences', jsonb_build_object('dmrn', null), 'audioVersion',
              jsonb_build_object('id', t.id, 'label', 'Main', 'versionType', 'radio_edit', 'assetId', t.id),
              'durationMs', t.duration, 'bpm', t.bpm, 'key', null, 'camelot', t.camelot, 'integratedLufs', t.lufs,
              'updatedAt', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
            '{}'::jsonb, now(), now() - g * interval '1 second'
       from generate_series(1, $3::int) as g,
            lateral (select md5($1 || g)::uuid as id,
                            case when g % 5 = 0 then 'jingle' else 'song' end as type,
                            ($2::text[])[1 + (g * 7) % 2000] || ' ' || ($2::text[])[1 + (g * 13) % 1999] as title,
                            ($2::text[])[1 + (g * 17) % 1997] as artist,
                            -- bigint: g * 7919 leaves integer's range past g = 271,000.
                            (120000 + (g::bigint * 7919) % 240000)::int as duration,
                            70 + ((g * 37) % 1000) / 10.0 as bpm,
                            (1 + g % 12)::text || case when g % 2 = 0 then 'A' else 'B' end as camelot,
                            -20 + (g % 150) / 10.0 as lufs) as t`,
    [tenantId, words, count],
  );
}

/** BENCH_LIBRARY_TRACKS (400,000) tracks in BENCH_LIBRARY_TENANTS (10) tenants, half of them in the first. */
export function librarySize(): { tracks: number; tenants: number } {
  const tracks = Number(process.env.BENCH_LIBRARY_TRACKS ?? 400_000);
  const tenants = Number(process.env.BENCH_LIBRARY_TENANTS ?? 10);
  if (!(Number.isInteger(tracks) && tracks > 0 && Number.isInteger(tenants) && tenants > 1))
    throw new Error('BENCH_LIBRARY_TRACKS must be a positive integer and BENCH_LIBRARY_TENANTS one above 1');
  return { tracks, tenants };
}

/**
 * Loads the library's tracks (half in the first tenant, the rest shared by the others), vacuums
 * and checkpoints; the seconds it took and the share of both tables' pages marked all-visible.
 */
export async function loadLibrary(owner: pg.Client, tenantIds: string[], tracks: number, words: string[]) {
  // Commits flushed before they return, whatever the server's default: VACUUM marks a page
  // all-visible only once its rows' commits are on disk, so with `synchronous_commit=off` (as
  // the test servers run) it left the words' index-only scans reading the heap.
  await owner.query('set synchronous_commit = on');
  const t0 = Date.now();
  const largest = Math.round(tracks / 2);
  const each = Math.round((tracks - largest) / (tenantIds.length - 1));
  for (const [i, tenantId] of tenantIds.entries()) await loadTracks(owner, tenantId, i === 0 ? largest : each, words);
  await owner.query('vacuum analyze library.tracks, library.track_words');
  await owner.query('checkpoint');
  const { rows } = await owner.query<{ share: number }>(
    `select round(sum(relallvisible)::numeric / greatest(sum(relpages), 1), 3)::float8 as share
       from pg_class where oid in ('library.tracks'::regclass, 'library.track_words'::regclass)`,
  );
  return { loadSeconds: (Date.now() - t0) / 1000, largestTenantTracks: largest, allVisibleShare: rows[0]!.share };
}
