/**
 * bench/accuracy/render.ts: renders the pieces of the corpus into a cache outside the repository
 * (BENCH_ACCURACY_CACHE, default ~/.cache/catalog-bench/accuracy/v<GENERATOR_VERSION>/<split>/),
 * each file named by a hash of its spec and MIDI, so a run renders only what changed. Each piece is
 * rendered in its own fluidsynth run (RENDERING), so its audio is a function of the piece alone:
 * in a medley it also depended on which pieces came before it, and so on what the cache already
 * held (decision 0187). Then ffmpeg applies each piece's degradation: pink noise, fades, a spoken
 * intro (espeak-ng), MP3 at 128 kbit/s, or all a broadcast chain does (BROADCAST).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { midiFile, renderMedley, SOUND_FONTS } from '@catalog/testing';
import { GENERATOR_VERSION, hasFades, hasNoise, isBroadcast, isMp3, songOf, type Piece } from './corpus.js';

const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 120_000;
const RATE = 44_100;
/** How a piece becomes audio, part of its file's name: a file rendered another way is not reused. */
export const RENDERING = 'each piece in its own fluidsynth run';
/** Pieces rendered at once (this machine's two cores). */
const PARALLEL = 2;
/**
 * A station's chain: band-limited to 70 Hz–12 kHz, loudness-normalised to −14 LUFS, limited at
 * −1 dBFS, then pink noise about 30 dB under the music (and MP3 at 128 kbit/s, isMp3()).
 */
const BROADCAST = 'highpass=f=70,lowpass=f=12000,loudnorm=I=-14:TP=-1:LRA=11,alimiter=limit=0.89:level=false';
const BROADCAST_NOISE = 0.012;

export const cacheRoot = () =>
  process.env.BENCH_ACCURACY_CACHE ?? join(homedir(), '.cache/catalog-bench/accuracy', `v${GENERATOR_VERSION}`);

/** The rate the analysis pipeline decodes to (mono). */
export const ANALYSIS_RATE = 11_025;

/** A rendered file's audio as the analysis pipeline decodes it (mono, ANALYSIS_RATE), cached beside it. */
export function decodedForAnalysis(file: string): Float32Array {
  const raw = `${file}.low.f32`;
  if (!existsSync(raw)) {
    const part = `${raw}.${process.pid}.part`;
    execFileSync('ffmpeg', [
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-i',
      file,
      '-af',
      `aformat=sample_fmts=flt:channel_layouts=mono,aresample=${ANALYSIS_RATE}`,
      '-f',
      'f32le',
      part,
    ]);
    renameSync(part, raw);
  }
  const bytes = readFileSync(raw);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

/** Where a piece's audio is (whether or not it is rendered yet). */
export function pieceFile(piece: Piece): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(piece))
    .update(RENDERING)
    .update(midiFile(songOf(piece)))
    .digest('hex')
    .slice(0, 12);
  return join(cacheRoot(), piece.split, `${piece.id}-${hash}.${isMp3(piece) ? 'mp3' : 'wav'}`);
}

/** Renders every piece not in the cache yet; returns each piece's file. */
export async function renderPieces(pieces: Piece[], log: (line: string) => void): Promise<Map<string, string>> {
  const files = new Map(pieces.map((piece) => [piece.id, pieceFile(piece)]));
  const missing = pieces.filter((piece) => !existsSync(files.get(piece.id)!));
  if (missing.length === 0) return files;
  requireTools(missing);
  log(`rendering ${missing.length} pieces`);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < missing.length; i = next++) {
      await renderPiece(missing[i]!, files.get(missing[i]!.id)!);
      if (++done % 500 === 0) log(`rendered ${done} of ${missing.length}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return files;
}

/** Fails before any render when a tool or sound font the pieces need is missing, naming what installs it. */
function requireTools(pieces: Piece[]): void {
  const tools = ['fluidsynth', 'ffmpeg', ...(pieces.some((piece) => piece.speech) ? ['espeak-ng'] : [])];
  const missing = [
    ...tools.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0),
    ...[...new Set(pieces.map((piece) => SOUND_FONTS[piece.font]))].filter((font) => !existsSync(font)),
  ];
  if (missing.length > 0) throw new Error(`rendering needs ${missing.join(', ')}: run bench/accuracy/setup.sh`);
}

/** One piece alone: fluidsynth, then its degradation, into `target`. */
async function renderPiece(piece: Piece, target: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'catalog-accuracy-'));
  try {
    const synthesized = join(work, 'piece.wav');
    // A medley of one: the cut is the song and half a gap after it, as the pieces were always cut.
    const [cut] = await renderMedley([songOf(piece)], synthesized, {
      soundfont: SOUND_FONTS[piece.font],
      sampleRate: RATE,
      effects: piece.effects === true,
    });
    await degrade(piece, synthesized, cut!, work, target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function degrade(
  piece: Piece,
  synthesized: string,
  cut: { startSeconds: number; seconds: number },
  work: string,
  target: string,
): Promise<void> {
  mkdirSync(join(target, '..'), { recursive: true });
  const inputs = ['-ss', cut.startSeconds.toFixed(6), '-t', cut.seconds.toFixed(6), '-i', synthesized];
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
