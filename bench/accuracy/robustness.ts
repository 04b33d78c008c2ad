/**
 * bench/accuracy/robustness.ts: how the key and tempo hold when a station's chain is harsher than
 * the tuning split's broadcast (render.ts BROADCAST). Reads the tuning split only: its pieces as
 * written, clean and without a spoken intro, each through every chain below (ffmpeg, straight
 * into the analysis rate, no MP3), scored with the committed weights (so the numbers compare the
 * chains, not the analyzers with other designs). Prints, per chain and generator, the key's
 * mir_eval weighted score and tempo Acc1 and Acc2 (17 minutes here):
 *   node --conditions=source --import tsx bench/accuracy/robustness.ts
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { KeyAnalyzer, TempoAnalyzer } from '@catalog/analysis/analyzers';
import { tuningCorpus, type Piece } from './corpus.js';
import { acc1, acc2, mirexScore, parseKey } from './metrics.js';
import { ANALYSIS_RATE, renderPieces } from './render.js';

const run = promisify(execFile);
/** Loudness-normalised to −14 LUFS and limited, as render.ts's BROADCAST does, after `band`. */
const aired = (band: string, loudness = 'loudnorm=I=-14:TP=-1:LRA=11,alimiter=limit=0.89:level=false') => `${band},${loudness}`;
/** Each chain: its ffmpeg filters and the pink noise added after them (ffmpeg anoisesrc amplitude; 0: none). */
const CHAINS: Array<{ name: string; filters: string; noise: number }> = [
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
];
const GENERATORS = ['song', 'loop', 'homophonic', 'ballad'] as const;
/** Decodes at once (this machine's two cores). */
const PARALLEL = 2;

/** A rendered file through a chain, as the analysis pipeline reads it (mono, ANALYSIS_RATE). */
async function throughChain(file: string, chain: (typeof CHAINS)[number], seed: number): Promise<Float32Array> {
  const out = `aformat=sample_fmts=flt:channel_layouts=mono,aresample=${ANALYSIS_RATE}[out]`;
  const graph =
    chain.noise > 0
      ? `[0:a]${chain.filters},aresample=44100,aformat=sample_fmts=fltp:channel_layouts=stereo[music];` +
        `anoisesrc=c=pink:r=44100:a=${chain.noise}:seed=${seed},aformat=sample_fmts=fltp:channel_layouts=stereo[hiss];` +
        `[music][hiss]amix=inputs=2:duration=first:normalize=0,${out}`
      : `[0:a]${chain.filters},${out}`;
  const args = ['-nostdin', '-loglevel', 'error', '-i', file, '-filter_complex', graph, '-map', '[out]', '-f', 'f32le', '-'];
  const { stdout } = await run('ffmpeg', args, { encoding: 'buffer', maxBuffer: 1 << 28, timeout: 120_000 });
  return new Float32Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 4);
}

interface Score {
  pieces: number;
  key: number;
  acc1: number;
  acc2: number;
}

function analysed(piece: Piece, samples: Float32Array): Score {
  const key = new KeyAnalyzer(ANALYSIS_RATE);
  const tempo = new TempoAnalyzer(ANALYSIS_RATE);
  key.write(samples, samples.length);
  tempo.write(samples, samples.length);
  const { bpm } = tempo.result();
  return {
    pieces: 1,
    key: mirexScore(piece.truth, parseKey(key.result().key)),
    acc1: acc1(piece.truth.bpm, bpm) ? 1 : 0,
    acc2: acc2(piece.truth.bpm, bpm) ? 1 : 0,
  };
}

const pieces = tuningCorpus(GENERATORS).filter((piece) => piece.degradation === 'clean' && piece.speech === null);
if (pieces.some((piece) => piece.split !== 'tuning')) throw new Error('robustness reads the tuning split only');
const files = await renderPieces(pieces, (line) => process.stderr.write(`${line}\n`));
console.log(`${pieces.length} tuning pieces as written, clean: ${GENERATORS.join(', ')}`);
for (const chain of CHAINS) {
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
