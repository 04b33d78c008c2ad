/**
 * bench/accuracy/evaluation/render.ts: renders the evaluation pieces into the cache (one fluidsynth
 * run a sound font, with its reverb and chorus on, cut apart), each file named by a hash of its
 * piece. The broadcast set's pieces then go through a broadcast chain: band-limited to
 * 50 Hz–15 kHz (an FM channel), loudness-normalised to −16 LUFS and limited at −1 dBFS (ffmpeg's
 * loudnorm and alimiter), white noise added at BROADCAST_SNR_DB (RMS against the music's RMS; a
 * seeded generator, so each run adds the same noise), then MP3 at 128 kbit/s.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { midiFile, renderMedley, seededRandom, SOUND_FONTS } from '@catalog/testing';
import { BROADCAST_SNR_DB, EVALUATION_VERSION, type EvaluationPiece } from './sets.js';

const run = promisify(execFile);
const RATE = 44_100;
const TOOL_TIMEOUT_MS = 300_000;
const MEDLEY_TIMEOUT_MS = 3_600_000;

/** Where a piece's audio is (whether or not it is rendered yet). */
export function evaluationFile(cacheDir: string, piece: EvaluationPiece): string {
  const hash = createHash('sha256').update(JSON.stringify(piece)).update(midiFile(piece.song)).digest('hex').slice(0, 12);
  return join(cacheDir, `v${EVALUATION_VERSION}`, piece.set, `${piece.id}-${hash}.${piece.broadcast ? 'mp3' : 'wav'}`);
}

export async function renderEvaluation(
  pieces: EvaluationPiece[],
  cacheDir: string,
  log: (line: string) => void,
): Promise<Map<string, string>> {
  const files = new Map(pieces.map((piece) => [piece.id, evaluationFile(cacheDir, piece)]));
  const missing = pieces.filter((piece) => !existsSync(files.get(piece.id)!));
  const fonts = [...new Set(missing.map((piece) => piece.font))];
  for (const font of fonts) {
    const group = missing.filter((piece) => piece.font === font);
    log(`rendering ${group.length} evaluation pieces with ${font}`);
    const work = mkdtempSync(join(tmpdir(), 'catalog-evaluation-'));
    try {
      const medley = join(work, 'medley.wav');
      const cuts = await renderMedley(
        group.map((piece) => piece.song),
        medley,
        { soundfont: SOUND_FONTS[font], sampleRate: RATE, effects: true, gain: 0.5, timeoutMs: MEDLEY_TIMEOUT_MS },
      );
      for (const [i, piece] of group.entries()) {
        const target = files.get(piece.id)!;
        mkdirSync(join(target, '..'), { recursive: true });
        const cut = ['-ss', cuts[i]!.startSeconds.toFixed(6), '-t', cuts[i]!.seconds.toFixed(6), '-i', medley];
        if (piece.broadcast) await broadcast(piece, cut, work, target);
        else {
          await ffmpeg([...cut, '-c:a', 'pcm_s16le', `${target}.part.wav`]);
          renameSync(`${target}.part.wav`, target);
        }
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return files;
}

const ffmpeg = (args: string[]) =>
  run('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args], { timeout: TOOL_TIMEOUT_MS, maxBuffer: 1 << 28, encoding: 'buffer' });

async function broadcast(piece: EvaluationPiece, cut: string[], work: string, target: string): Promise<void> {
  const processed = join(work, `${piece.id}.f32`);
  await ffmpeg([
    ...cut,
    '-af',
    `highpass=f=50,lowpass=f=15000,loudnorm=I=-16:TP=-1.5:LRA=11,alimiter=limit=${10 ** (-1 / 20)}:level=disabled,aresample=${RATE}`,
    '-ac',
    '2',
    '-f',
    'f32le',
    processed,
  ]);
  const bytes = readFileSync(processed);
  const samples = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const rms = Math.sqrt(samples.reduce((sum, v) => sum + v * v, 0) / Math.max(1, samples.length));
  // Uniform white noise on [-a, a] has RMS a/√3.
  const amplitude = (rms / 10 ** (BROADCAST_SNR_DB / 20)) * Math.sqrt(3);
  const random = seededRandom(Number.parseInt(createHash('sha256').update(piece.id).digest('hex').slice(0, 8), 16));
  for (let i = 0; i < samples.length; i++) samples[i] = samples[i]! + amplitude * (2 * random() - 1);
  writeFileSync(processed, samples);
  await ffmpeg([
    '-f',
    'f32le',
    '-ar',
    String(RATE),
    '-ac',
    '2',
    '-i',
    processed,
    '-c:a',
    'libmp3lame',
    '-b:a',
    '128k',
    `${target}.part.mp3`,
  ]);
  renameSync(`${target}.part.mp3`, target);
}
