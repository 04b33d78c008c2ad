/**
 * bench/accuracy/render.ts: renders the pieces of the corpus into a cache outside the repository
 * (BENCH_ACCURACY_CACHE, default ~/.cache/catalog-bench/accuracy/v<GENERATOR_VERSION>/<split>/),
 * each file named by a hash of its spec and MIDI, so a run renders only what changed. The pieces of
 * one sound font are rendered in one fluidsynth run (a medley, cut apart), then ffmpeg applies
 * each piece's degradation: pink noise, fades, a spoken intro (espeak-ng), MP3 at 128 kbit/s, or
 * all a broadcast chain does (BROADCAST).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { midiFile, renderMedley, SOUND_FONTS } from '@catalog/testing';
import { GENERATOR_VERSION, hasFades, hasNoise, isBroadcast, isMp3, songOf, type Piece } from './corpus.js';

const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 120_000;
/** A medley of 48–72 thirty-second pieces renders in well under this. */
const MEDLEY_TIMEOUT_MS = 1_800_000;
const RATE = 44_100;
/**
 * A station's chain: band-limited to 70 Hz–12 kHz, loudness-normalised to −14 LUFS, limited at
 * −1 dBFS, then pink noise about 30 dB under the music (and MP3 at 128 kbit/s, isMp3()).
 */
const BROADCAST = 'highpass=f=70,lowpass=f=12000,loudnorm=I=-14:TP=-1:LRA=11,alimiter=limit=0.89:level=false';
const BROADCAST_NOISE = 0.012;

export const cacheRoot = () =>
  process.env.BENCH_ACCURACY_CACHE ?? join(homedir(), '.cache/catalog-bench/accuracy', `v${GENERATOR_VERSION}`);

/** Where a piece's audio is (whether or not it is rendered yet). */
export function pieceFile(piece: Piece): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(piece))
    .update(midiFile(songOf(piece)))
    .digest('hex')
    .slice(0, 12);
  return join(cacheRoot(), piece.split, `${piece.id}-${hash}.${isMp3(piece) ? 'mp3' : 'wav'}`);
}

/** Renders every piece not in the cache yet; returns each piece's file. */
export async function renderPieces(pieces: Piece[], log: (line: string) => void): Promise<Map<string, string>> {
  const files = new Map(pieces.map((piece) => [piece.id, pieceFile(piece)]));
  const missing = pieces.filter((piece) => !existsSync(files.get(piece.id)!));
  const groups = new Map<string, Piece[]>();
  const groupOf = (piece: Piece) => `${piece.split}/${piece.font}${piece.effects ? ' with reverb and chorus' : ''}`;
  for (const piece of missing) groups.set(groupOf(piece), [...(groups.get(groupOf(piece)) ?? []), piece]);
  for (const [name, group] of groups) {
    log(`rendering ${group.length} pieces of ${name}`);
    const work = mkdtempSync(join(tmpdir(), 'catalog-accuracy-'));
    try {
      const medley = join(work, 'medley.wav');
      const cuts = await renderMedley(group.map(songOf), medley, {
        soundfont: SOUND_FONTS[group[0]!.font],
        sampleRate: RATE,
        effects: group[0]!.effects === true,
        timeoutMs: MEDLEY_TIMEOUT_MS,
      });
      for (let i = 0; i < group.length; i += 2) {
        await Promise.all(group.slice(i, i + 2).map((piece, j) => degrade(piece, medley, cuts[i + j]!, work, files.get(piece.id)!)));
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return files;
}

async function degrade(
  piece: Piece,
  medley: string,
  cut: { startSeconds: number; seconds: number },
  work: string,
  target: string,
): Promise<void> {
  mkdirSync(join(target, '..'), { recursive: true });
  const inputs = ['-ss', cut.startSeconds.toFixed(6), '-t', cut.seconds.toFixed(6), '-i', medley];
  const filters: string[] = [];
  let music = '[0:a]';
  if (hasNoise(piece)) {
    filters.push(
      `anoisesrc=c=pink:r=${RATE}:a=0.04:d=${cut.seconds.toFixed(3)}:seed=${piece.spec.seed % 100_000},aformat=channel_layouts=stereo[noise]`,
    );
    filters.push(`${music}[noise]amix=inputs=2:duration=first:normalize=0[noisy]`);
    music = '[noisy]';
  }
  if (isBroadcast(piece)) {
    filters.push(`${music}${BROADCAST},aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=stereo[aired]`);
    filters.push(
      `anoisesrc=c=pink:r=${RATE}:a=${BROADCAST_NOISE}:d=${cut.seconds.toFixed(3)}:seed=${piece.spec.seed % 100_000},aformat=sample_fmts=fltp:channel_layouts=stereo[hiss]`,
    );
    filters.push(`[aired][hiss]amix=inputs=2:duration=first:normalize=0[broadcast]`);
    music = '[broadcast]';
  }
  if (hasFades(piece)) {
    filters.push(`${music}afade=t=in:d=4,afade=t=out:st=${(cut.seconds - 5).toFixed(3)}:d=5[faded]`);
    music = '[faded]';
  }
  if (piece.speech) {
    const speech = join(work, `${piece.id}-speech.wav`);
    await run('espeak-ng', ['-s', '165', '-w', speech, piece.speech], { timeout: TOOL_TIMEOUT_MS });
    inputs.push('-i', speech);
    filters.push(`[1:a]aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=stereo,apad=pad_dur=0.6[voice]`);
    filters.push(`${music}aformat=sample_fmts=fltp:channel_layouts=stereo[m]`, `[voice][m]concat=n=2:v=0:a=1[spoken]`);
    music = '[spoken]';
  }
  filters.push(`${music}anull[out]`);
  const codec = isMp3(piece) ? ['-c:a', 'libmp3lame', '-b:a', '128k'] : ['-c:a', 'pcm_s16le'];
  const partial = `${target}.part${isMp3(piece) ? '.mp3' : '.wav'}`;
  await run(
    'ffmpeg',
    [
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      ...inputs,
      '-filter_complex',
      filters.join(';'),
      '-map',
      '[out]',
      '-ar',
      String(RATE),
      ...codec,
      partial,
    ],
    {
      timeout: TOOL_TIMEOUT_MS,
    },
  );
  renameSync(partial, target);
}
