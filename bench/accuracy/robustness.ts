/**
 * bench/accuracy/robustness.ts: how the key and tempo hold when a station's chain is harsher than
 * the tuning split's broadcast (render.ts BROADCAST). Reads the tuning split only: its pieces as
 * written, clean and without a spoken intro, each through every chain below (ffmpeg, straight
 * into the analysis rate, MP3 only where a chain says so), scored with the committed weights (so
 * the numbers compare the chains, not the analyzers with other designs). Prints, per chain and
 * generator, the key's mir_eval weighted score and tempo Acc1 and Acc2 (about 3 minutes a chain
 * here, 6 with MP3); words after the command run only the chains whose name holds one:
 *   node --conditions=source --import tsx bench/accuracy/robustness.ts [white|squashed|…]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { seededRandom } from '@catalog/testing';
import { tuningCorpus, type Piece } from './corpus.js';
import { keyAndBpmOf } from './estimators.js';
import { acc1, acc2, mirexScore, parseKey } from './metrics.js';
import { ANALYSIS_RATE, renderPieces } from './render.js';

const run = promisify(execFile);
/** Loudness-normalised to −14 LUFS and limited, as render.ts's BROADCAST does, after `band`. */
const aired = (band: string, loudness = 'loudnorm=I=-14:TP=-1:LRA=11,alimiter=limit=0.89:level=false') => `${band},${loudness}`;
/**
 * Each chain: its ffmpeg filters and the pink noise added after them (ffmpeg anoisesrc amplitude;
 * 0: none); or white noise at a signal-to-noise ratio (dB, against the filtered music's RMS); then
 * MP3 at 128 kbit/s if asked.
 */
interface Chain {
  name: string;
  filters: string;
  noise: number;
  whiteSnrDb?: number;
  mp3?: boolean;
}
const CHAINS: Chain[] = [
  { name: 'as rendered', filters: 'anull', noise: 0 },
  { name: 'the tuning broadcast (70 Hz–12 kHz, hiss 0.012)', filters: aired('highpass=f=70,lowpass=f=12000'), noise: 0.012 },
  { name: 'bass cut (150 Hz–12 kHz)', filters: aired('highpass=f=150,lowpass=f=12000'), noise: 0.012 },
  { name: 'narrow band (70 Hz–5 kHz)', filters: aired('highpass=f=70,lowpass=f=5000'), noise: 0.012 },
  {
    name: 'squashed (8:1 compressor, LRA 5, limit −3 dBFS)',
    filters: aired(
      'highpass=f=70,lowpass=f=12000,acompressor=threshold=0.05:ratio=8:attack=5:release=100',
      'loudnorm=I=-14:TP=-1:LRA=5,alimiter=limit=0.7:level=false',
    ),
    noise: 0.012,
  },
  { name: 'loud hiss (0.05)', filters: aired('highpass=f=70,lowpass=f=12000'), noise: 0.05 },
  { name: 'white noise at 30 dB SNR', filters: aired('highpass=f=70,lowpass=f=12000'), noise: 0, whiteSnrDb: 30 },
  { name: 'white noise at 30 dB SNR, MP3', filters: aired('highpass=f=70,lowpass=f=12000'), noise: 0, whiteSnrDb: 30, mp3: true },
  { name: 'white noise at 20 dB SNR, MP3', filters: aired('highpass=f=70,lowpass=f=12000'), noise: 0, whiteSnrDb: 20, mp3: true },
];
/** `robustness.ts [words…]`: only the chains whose name holds one of the words (all without). */
const chosen = process.argv.slice(2);
const chains = chosen.length === 0 ? CHAINS : CHAINS.filter((chain) => chosen.some((word) => chain.name.includes(word)));
const GENERATORS = ['song', 'loop', 'homophonic', 'ballad'] as const;
/** Decodes at once (this machine's two cores). */
const PARALLEL = 2;

const decodeArgs = (input: string[], graph: string) => [
  '-nostdin',
  '-loglevel',
  'error',
  ...input,
  '-filter_complex',
  graph,
  '-map',
  '[out]',
  '-f',
  'f32le',
  '-',
];
async function ffmpegSamples(args: string[]): Promise<Float32Array> {
  const { stdout } = await run('ffmpeg', args, { encoding: 'buffer', maxBuffer: 1 << 28, timeout: 120_000 });
  return new Float32Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 4);
}

/**
 * White noise at `snrDb` under the music's RMS (Gaussian, seeded), added to the music as ffmpeg
 * filters it (stereo, 44.1 kHz), then MP3 if the chain asks; as the analysis pipeline reads it.
 */
async function withWhiteNoise(file: string, chain: Chain, seed: number): Promise<Float32Array> {
  const stereo = await ffmpegSamples(
    decodeArgs(['-i', file], `[0:a]${chain.filters},aresample=44100,aformat=sample_fmts=flt:channel_layouts=stereo[out]`),
  );
  const rms = Math.sqrt(stereo.reduce((sum, v) => sum + v * v, 0) / stereo.length);
  const sigma = rms * 10 ** (-chain.whiteSnrDb! / 20);
  const random = seededRandom(seed);
  const noisy = stereo.map((v) => v + sigma * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
  const work = mkdtempSync(join(tmpdir(), 'catalog-robustness-'));
  try {
    const raw = join(work, 'noisy.f32');
    writeFileSync(raw, noisy);
    const rawIn = ['-f', 'f32le', '-ar', '44100', '-ac', '2', '-i', raw];
    let input = rawIn;
    if (chain.mp3) {
      const mp3 = join(work, 'noisy.mp3');
      await run('ffmpeg', ['-nostdin', '-loglevel', 'error', ...rawIn, '-c:a', 'libmp3lame', '-b:a', '128k', mp3], { timeout: 120_000 });
      input = ['-i', mp3];
    }
    return await ffmpegSamples(decodeArgs(input, `[0:a]aformat=sample_fmts=flt:channel_layouts=mono,aresample=${ANALYSIS_RATE}[out]`));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A rendered file through a chain, as the analysis pipeline reads it (mono, ANALYSIS_RATE). */
async function throughChain(file: string, chain: Chain, seed: number): Promise<Float32Array> {
  if (chain.whiteSnrDb !== undefined) return withWhiteNoise(file, chain, seed);
  const out = `aformat=sample_fmts=flt:channel_layouts=mono,aresample=${ANALYSIS_RATE}[out]`;
  const graph =
    chain.noise > 0
      ? `[0:a]${chain.filters},aresample=44100,aformat=sample_fmts=fltp:channel_layouts=stereo[music];` +
        `anoisesrc=c=pink:r=44100:a=${chain.noise}:seed=${seed},aformat=sample_fmts=fltp:channel_layouts=stereo[hiss];` +
        `[music][hiss]amix=inputs=2:duration=first:normalize=0,${out}`
      : `[0:a]${chain.filters},${out}`;
  return ffmpegSamples(decodeArgs(['-i', file], graph));
}

interface Score {
  pieces: number;
  key: number;
  acc1: number;
  acc2: number;
}

function analysed(piece: Piece, samples: Float32Array): Score {
  const { key, bpm } = keyAndBpmOf(samples, ANALYSIS_RATE);
  return {
    pieces: 1,
    key: mirexScore(piece.truth, parseKey(key)),
    acc1: acc1(piece.truth.bpm, bpm) ? 1 : 0,
    acc2: acc2(piece.truth.bpm, bpm) ? 1 : 0,
  };
}

const pieces = tuningCorpus(GENERATORS).filter((piece) => piece.degradation === 'clean' && piece.speech === null);
if (pieces.some((piece) => piece.split !== 'tuning')) throw new Error('robustness reads the tuning split only');
const files = await renderPieces(pieces, (line) => process.stderr.write(`${line}\n`));
console.log(`${pieces.length} tuning pieces as written, clean: ${GENERATORS.join(', ')}`);
for (const chain of chains) {
  const totals = new Map<string, Score>();
  for (let i = 0; i < pieces.length; i += PARALLEL) {
    const batch = pieces.slice(i, i + PARALLEL);
    const decoded = await Promise.all(batch.map((piece) => throughChain(files.get(piece.id)!, chain, piece.spec.seed % 100_000)));
    batch.forEach((piece, j) => {
      const score = analysed(piece, decoded[j]!);
      const total = totals.get(piece.generator) ?? { pieces: 0, key: 0, acc1: 0, acc2: 0 };
      totals.set(piece.generator, {
        pieces: total.pieces + 1,
        key: total.key + score.key,
        acc1: total.acc1 + score.acc1,
        acc2: total.acc2 + score.acc2,
      });
    });
  }
  for (const generator of GENERATORS) {
    const total = totals.get(generator);
    if (!total) continue;
    const share = (value: number) => ((100 * value) / total.pieces).toFixed(1);
    console.log(
      `${chain.name}: ${generator} (${total.pieces}): key ${(total.key / total.pieces).toFixed(3)} acc1 ${share(total.acc1)} acc2 ${share(total.acc2)}`,
    );
  }
}
