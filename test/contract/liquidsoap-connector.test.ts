import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Assignment } from '@catalog/contracts';
import { demoSong, eventually, renderSong } from '@catalog/testing';
import { bestMatch, decodeMono, integratedLoudness, MATCH_RATE, window } from '../support/audio-match.js';
import { PATIENT_CALLS } from '../support/system.js';
import { useSystem } from '../support/use-system.js';
import { confirmUpload } from '../support/api.js';

/**
 * The Liquidsoap connector (packages/liquidsoap) with the real engine, Debian's `liquidsoap`
 * (decision 0159). Three songs with silence before and after, at different levels, analysed by
 * the catalog; the connector syncs them into its playlist; liquidsoap plays it once through
 * `cue_cut` and `amplify` into a WAV file: each song is there from its cue in to its cue out
 * (found by cross-correlation with its source), at the target loudness (ffmpeg's ebur128), in
 * the playlist's order. Then the loop through the catalog: a new primary, an unassignment, the
 * connector killed and restarted (nothing downloaded again, nothing missed), and stopped (down).
 */
const run = promisify(execFile);
const sut = useSystem({ env: { ...PATIENT_CALLS, CATALOG_HEARTBEAT_SWEEP_INTERVAL_MS: '200' } });
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(repo, 'packages', 'liquidsoap', 'bin', 'catalog-liquidsoap.js');
// The rendered music peaks ~16 dB above its loudness and `amplify` does not limit: at −14 LUFS the
// loud songs would clip, so the proof levels them to −20 (a station puts a limiter after amplify).
const TARGET_LUFS = -20;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'liquidsoap-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A song: music rendered with fluidsynth, `padSeconds` of silence before and after, at `gainDb`. */
async function song(name: string, tonic: number, gainDb: number, padSeconds: number): Promise<string> {
  const dry = join(work, `${name}.dry.wav`);
  await renderSong({ bpm: 120, notes: demoSong(4, tonic, tonic % 2 === 0 ? 'major' : 'minor') }, dry);
  const path = join(work, `${name}.wav`);
  const pad = Math.round(padSeconds * 1000);
  await run('ffmpeg', ['-v', 'error', '-y', '-i', dry, '-af', `volume=${gainDb}dB,adelay=${pad}:all=1,apad=pad_dur=${padSeconds}`, path]);
  return path;
}

/** The connector process, its JSON log lines collected. */
function startConnector(env: Record<string, string>): { child: ChildProcess; lines: Array<Record<string, unknown>> } {
  const child = spawn(process.execPath, ['--conditions=source', bin], {
    cwd: repo,
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Array<Record<string, unknown>> = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop()!;
    for (const part of parts) if (part.trim()) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  return { child, lines };
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/**
 * Plays `playlist` once through cue_cut and amplify into `out` with liquidsoap, in real time: run
 * faster (`clock(sync="none")`), a loaded machine may not have the next song prepared when one
 * ends, and the playlist then looks finished.
 */
async function playOnce(playlist: string, out: string): Promise<void> {
  const script = join(work, 'once.liq');
  await writeFile(
    script,
    [
      'settings.init.allow_root.set(true)',
      'settings.log.stdout.set(true)',
      'settings.log.file.set(false)',
      `s = playlist(mode="normal", reload_mode="never", loop=false, ${JSON.stringify(playlist)})`,
      's = cue_cut(s)',
      's = amplify(override="liq_amplify", 1.0, s)',
      `output.file(%wav, fallible=true, on_stop=shutdown, ${JSON.stringify(out)}, s)`,
      '',
    ].join('\n'),
  );
  await run('liquidsoap', [script], { timeout: 180_000 });
}

interface Station {
  key: string;
  connectorKey: string;
  integrationId: string;
}

async function station(): Promise<Station> {
  const operator = await sut.api.tenant({ permissions: ['catalog:api', 'catalog:analysis'] });
  expect((await sut.api.admin('POST', `/admin/v1/organizations/${operator.orgId}/credits`, { amount: 100, reason: 'test' })).status).toBe(
    201,
  );
  // The connector reads the loudness and cue_points results: catalog:analysis besides catalog:api.
  const connector = await sut.api.apiKey(operator.orgId, {
    name: 'Liquidsoap connector',
    permissions: ['catalog:api', 'catalog:analysis'],
  });
  const created = await sut.api.request('POST', '/api/v1/catalog/integrations', {
    key: operator.key,
    body: { name: 'Studio A playout', kind: 'playout', system: 'Liquidsoap', heartbeatSeconds: 2 },
  });
  // The name is what a person reads; the source system the connector's writes carry is derived from it.
  expect(created.body).toMatchObject({ name: 'Studio A playout', sourceSystem: 'studio-a-playout' });
  const bound = await sut.api.admin('PUT', `/admin/v1/api-keys/${connector.keyId}/source-system`, { integrationId: created.body.id });
  expect(bound.status).toBe(200);
  return { key: operator.key, connectorKey: connector.key, integrationId: created.body.id };
}

/** Runs an analysis of a version to its end; its result. */
async function analysed(key: string, versionId: string, type: 'loudness' | 'cue_points'): Promise<Record<string, number>> {
  const job = await sut.api.request('POST', '/api/v1/catalog/analyses', { key, body: { type, source: { versionId } } });
  expect(job.status).toBe(202);
  let last: unknown;
  const done = await eventually(async () => {
    const read = (await sut.api.request('GET', `/api/v1/catalog/analyses/${job.body.jobId}`, { key })).body;
    last = read;
    return read.status === 'SUCCEEDED' || read.status === 'FAILED' ? read : undefined;
  }, 120_000).catch((error: Error) => {
    throw new Error(`${error.message}; the job: ${JSON.stringify(last)}`);
  });
  expect(done.status).toBe('SUCCEEDED');
  return done.result;
}

/** What a song's analyses said: its cue points (seconds) and integrated loudness. */
interface Analysed {
  path: string;
  versionId: string;
  cueIn: number;
  cueOut: number;
  lufs: number;
}

/** A version of `entityId` from the file at `path`, uploaded, confirmed and analysed (loudness, cue_points). */
async function addVersion(key: string, entityId: string, path: string, isPrimary: boolean): Promise<Analysed> {
  const bytes = await readFile(path);
  const created = await sut.api.request('POST', `/api/v1/catalog/entities/${entityId}/versions`, {
    key,
    body: {
      source: { upload: { filename: 'song.wav', contentType: 'audio/wav', size: bytes.length, checksum: `sha256:${sha256(bytes)}` } },
      label: 'Radio edit',
      versionType: 'radio_edit',
      isPrimary,
    },
  });
  expect(created.status).toBe(201);
  expect((await fetch(created.body.upload.url, { method: 'PUT', headers: created.body.upload.headers, body: bytes })).status).toBe(200);
  expect((await confirmUpload(sut.api, key, created.body.asset.id)).status).toBe(200);
  const loudness = await analysed(key, created.body.id, 'loudness');
  const cues = await analysed(key, created.body.id, 'cue_points');
  return { path, versionId: created.body.id, cueIn: cues.cueInMs! / 1000, cueOut: cues.cueOutMs! / 1000, lufs: loudness.integratedLufs! };
}

async function addSong(key: string, title: string, path: string): Promise<Analysed & { entityId: string }> {
  const entity = await sut.api.request('POST', '/api/v1/catalog/entities', { key, body: { type: 'song', title, artist: 'The Testers' } });
  expect(entity.status).toBe(201);
  return { entityId: entity.body.id, ...(await addVersion(key, entity.body.id, path, true)) };
}

/** The playlist's songs: each line's catalog version id and path. */
async function playlistOf(path: string): Promise<Array<{ versionId: string; path: string; line: string }>> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.startsWith('annotate:'))
    .map((line) => ({ versionId: /catalog_version_id="([^"]+)"/.exec(line)![1]!, path: line.slice(line.lastIndexOf('":') + 2), line }));
}

/** Checks the rendered `out` holds `songs` one after the other, each from cue in to cue out at the target loudness. */
async function expectPlayed(out: string, songs: readonly Analysed[]): Promise<void> {
  const played = await decodeMono(out);
  let start = 0;
  const measured: Array<[number, number, number]> = [];
  for (const song of songs) {
    const source = await decodeMono(song.path);
    const length = song.cueOut - song.cueIn;
    const head = bestMatch(played, window(source, song.cueIn, song.cueIn + 1), start - 1.5, start + 1.5);
    // The tail's window stops short of the cue out, so a render a millisecond shorter still holds it whole.
    const tail = bestMatch(played, window(source, song.cueOut - 2.25, song.cueOut - 0.25), start + length - 3.75, start + length - 0.75);
    const end = tail.at + 2.25;
    expect(head.score).toBeGreaterThan(0.9);
    expect(tail.score).toBeGreaterThan(0.9);
    expect(Math.abs(head.at - start)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(end - (start + length))).toBeLessThanOrEqual(0.1);
    const lufs = await integratedLoudness(out, head.at, end);
    expect(Math.abs(lufs - TARGET_LUFS)).toBeLessThanOrEqual(1);
    measured.push([Number(head.at.toFixed(3)), Number(end.toFixed(3)), lufs]);
    start = end;
  }
  // The last song's cue out ends the render.
  expect(Math.abs(played.length / MATCH_RATE - start)).toBeLessThanOrEqual(0.1);
  process.stdout.write(
    `liquidsoap output: ${JSON.stringify(measured)} (start s, end s, LUFS) for sources at ${songs.map((s) => s.lufs).join(', ')} LUFS\n`,
  );
}

test('liquidsoap plays what the catalog assigns, cued and levelled; the loop of a primary change, an unassignment, a restart and a stop', async () => {
  const { key, connectorKey, integrationId } = await station();
  const base = `/api/v1/catalog/integrations/${integrationId}`;
  const songs = [
    await addSong(key, 'Quiet one', await song('one', 0, -14, 1.5)),
    await addSong(key, 'Loud two', await song('two', 5, 0, 2)),
    await addSong(key, 'Middle three', await song('three', 3, -7, 1)),
  ];
  // Different levels, each with silence the cue points leave out.
  expect(new Set(songs.map((s) => Math.round(s.lufs))).size).toBe(3);
  for (const s of songs) expect(s.cueIn).toBeGreaterThan(0.9);
  for (const s of songs) expect((await sut.api.request('PUT', `${base}/assignments/${s.entityId}`, { key })).status).toBe(200);

  const media = join(work, 'media');
  const playlist = join(media, 'catalog.m3u');
  const env = {
    CATALOG_URL: sut.system.baseUrl,
    CATALOG_API_KEY: connectorKey,
    CATALOG_INTEGRATION_ID: integrationId,
    LIQUIDSOAP_MEDIA_DIR: media,
    LIQUIDSOAP_TARGET_LUFS: String(TARGET_LUFS),
  };
  let connector = startConnector(env);
  try {
    const assignments = async () => (await sut.api.request('GET', `${base}/assignments`, { key })).body.assignments as Assignment[];
    const synced = await eventually(async () => {
      const list = await assignments();
      return list.every((a) => a.syncState === 'synced') ? list : undefined;
    }, 60_000);
    expect(synced.map((a) => [a.entityId, a.versionIds])).toEqual(songs.map((s) => [s.entityId, [s.versionId]]));
    const lines = await playlistOf(playlist);
    expect(lines.map((l) => l.versionId)).toEqual(songs.map((s) => s.versionId));
    expect(synced.map((a) => a.externalId)).toEqual(lines.map((l) => l.path));

    // The real engine plays the playlist once: each song from its cue in to its cue out, at the target, in order.
    const playStarted = Date.now();
    await playOnce(playlist, join(work, 'first.wav'));
    const playedMs = Date.now() - playStarted;
    await expectPlayed(join(work, 'first.wav'), songs);
    process.stdout.write(`liquidsoap rendered ${songs.length} songs in ${playedMs} ms\n`);

    // Healthy, by its heartbeat.
    await eventually(
      async () => ((await sut.api.request('GET', base, { key })).body.health.status === 'healthy' ? true : undefined),
      20_000,
    );

    // A new primary: pending, then synced with the new file, which the next play uses; the old file is gone.
    const second = songs[1]!;
    const replacement = await addVersion(key, second.entityId, await song('two-b', 7, -3, 1.5), false);
    expect(
      (
        await sut.api.request('PATCH', `/api/v1/catalog/entities/${second.entityId}/versions/${replacement.versionId}`, {
          key,
          body: { isPrimary: true },
        })
      ).status,
    ).toBe(200);
    const resynced = await eventually(async () => {
      const now = (await playlistOf(playlist)).map((l) => l.versionId);
      return now[1] === replacement.versionId ? now : undefined;
    }, 60_000);
    expect(resynced).toEqual([songs[0]!.versionId, replacement.versionId, songs[2]!.versionId]);
    await eventually(async () => ((await assignments())[1]?.syncState === 'synced' ? true : undefined), 20_000);
    await expect(stat(lines[1]!.path)).rejects.toThrow();
    await playOnce(playlist, join(work, 'second.wav'));
    await expectPlayed(join(work, 'second.wav'), [songs[0]!, replacement, songs[2]!]);

    // Unassigned: its line and its file are gone.
    expect((await sut.api.request('DELETE', `${base}/assignments/${songs[2]!.entityId}`, { key })).status).toBe(204);
    await eventually(async () => ((await playlistOf(playlist)).length === 2 ? true : undefined), 30_000);
    // The connector takes the line off first, then the file (liquidsoap never plays a missing file).
    await eventually(
      async () =>
        await stat(lines[2]!.path).then(
          () => undefined,
          () => true,
        ),
      30_000,
    );

    // Killed; meanwhile the third song is assigned again. Restarted: it catches up, downloading only that one.
    const kept = await playlistOf(playlist);
    const before = await Promise.all(kept.map(async (l) => (await stat(l.path)).mtimeMs));
    await stopProcess(connector.child, 'SIGKILL');
    expect((await sut.api.request('PUT', `${base}/assignments/${songs[2]!.entityId}`, { key })).status).toBe(200);
    connector = startConnector(env);
    const caughtUp = await eventually(async () => {
      const now = await playlistOf(playlist);
      return now.length === 3 ? now : undefined;
    }, 60_000);
    expect(caughtUp.map((l) => l.versionId)).toEqual([songs[0]!.versionId, replacement.versionId, songs[2]!.versionId]);
    expect(await Promise.all(kept.map(async (l) => (await stat(l.path)).mtimeMs))).toEqual(before);
    // Each song synced again, only the one it had not held downloaded (a feed event may sync one twice: never a download).
    const syncedAgain = (downloaded: boolean) =>
      connector.lines.filter((l) => l.message === 'synced' && l.downloaded === downloaded).map((l) => l.versionId as string);
    await eventually(async () => (syncedAgain(true).length > 0 ? true : undefined), 20_000);
    expect(syncedAgain(true)).toEqual([songs[2]!.versionId]);
    expect(syncedAgain(false)).toEqual(expect.arrayContaining([songs[0]!.versionId, replacement.versionId]));
    await eventually(async () => ((await assignments()).every((a) => a.syncState === 'synced') ? true : undefined), 20_000);

    // Stopped: no heartbeat comes, and the catalog says the integration is down.
    await stopProcess(connector.child, 'SIGTERM');
    const down = await eventually(async () => {
      const read = (await sut.api.request('GET', base, { key })).body;
      return read.health.status === 'down' ? read : undefined;
    }, 30_000);
    expect(down.assignments).toEqual({ pending: 0, synced: 3, failed: 0 });
  } finally {
    await stopProcess(connector.child, 'SIGKILL');
  }
}, 600_000);
