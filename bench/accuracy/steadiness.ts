/**
 * bench/accuracy/steadiness.ts: what the tempo's steady-pulse test reads (decision 0189), on audio
 * without a pulse and on the tuning split's sustained pieces. Speech: espeak-ng reading two news
 * bulletins, each twice, in six voices at two speeds (24 files), three of them under pink noise;
 * noise: ffmpeg's white, pink and brown. Music: the tuning split's homophonic pieces and ballads,
 * as written and replayed, and the homophonic pieces broadcast. Prints each file's periodicity,
 * harmony persistence and BPM, then the extremes the thresholds sit between:
 *   node --conditions=source --import tsx bench/accuracy/steadiness.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TempoAnalyzer } from '@catalog/analysis/analyzers';
import { broadcast, REPLAYINGS, replayed, tuningCorpus } from './corpus.js';
import { ANALYSIS_RATE, decodedForAnalysis, renderPieces } from './render.js';

const BULLETINS = [
  'Good morning and welcome back to the breakfast show. It is seven fifteen and the traffic on the ring road is slow after an accident near the bridge. Coming up after the news we have the weather for the weekend, which looks bright but cold, and a chat with the organisers of the winter fair in the town square.',
  'This is the evening news. The council voted last night to keep the library open on Sundays, after a campaign by parents and teachers. In sport, the home side won three goals to one, their best result of the season. And now, the shipping forecast for the coming twenty four hours, issued by the met office.',
];
const VOICES = ['en', 'en-us', 'en+f3', 'en+m3', 'de', 'fr'];
const SPEEDS = [140, 175];
/** Which speech files are also heard under pink noise. */
const UNDER_NOISE = [0, 4, 8];

interface Reading {
  name: string;
  music: boolean;
  periodicity: number;
  persistence: number;
  bpm: number | null;
}

function read(name: string, music: boolean, samples: Float32Array): Reading {
  const analyzer = new TempoAnalyzer(ANALYSIS_RATE);
  analyzer.write(samples, samples.length);
  return {
    name,
    music,
    periodicity: analyzer.pulse()?.periodicity ?? 0,
    persistence: analyzer.persistence(),
    bpm: analyzer.result().bpm,
  };
}

const work = mkdtempSync(join(tmpdir(), 'catalog-steadiness-'));
const readings: Reading[] = [];
try {
  const ffmpeg = (...args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args], { timeout: 120_000 });
  const speech = VOICES.flatMap((voice) => SPEEDS.flatMap((speed) => BULLETINS.map((text) => ({ voice, speed, text }))));
  speech.forEach(({ voice, speed, text }, i) => {
    const file = join(work, `speech-${i}.wav`);
    execFileSync('espeak-ng', ['-v', voice, '-s', String(speed), '-w', file, `${text} ${text}`], { timeout: 120_000 });
    readings.push(read(`speech ${voice} ${speed}`, false, decodedForAnalysis(file)));
    if (UNDER_NOISE.includes(i)) {
      const noisy = join(work, `speech-${i}-noise.wav`);
      ffmpeg(
        '-i',
        file,
        '-f',
        'lavfi',
        '-i',
        'anoisesrc=c=pink:r=22050:a=0.02:d=60',
        '-filter_complex',
        '[0:a]aresample=22050[a];[a][1:a]amix=inputs=2:duration=first:normalize=0',
        noisy,
      );
      readings.push(read(`speech ${voice} ${speed} under pink noise`, false, decodedForAnalysis(noisy)));
    }
  });
  for (const colour of ['white', 'pink', 'brown']) {
    const file = join(work, `noise-${colour}.wav`);
    ffmpeg('-f', 'lavfi', '-i', `anoisesrc=c=${colour}:r=44100:a=0.3:d=30`, file);
    readings.push(read(`${colour} noise`, false, decodedForAnalysis(file)));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const sustained = tuningCorpus(['homophonic', 'ballad']);
const pieces = [
  ...sustained,
  ...REPLAYINGS.flatMap((how) => sustained.map((piece) => replayed(piece, how))),
  ...sustained.filter((piece) => piece.generator === 'homophonic').map(broadcast),
];
const files = await renderPieces(pieces, (line) => process.stderr.write(`${line}\n`));
for (const piece of pieces) readings.push(read(`${piece.id} (${piece.truth.bpm} BPM)`, true, decodedForAnalysis(files.get(piece.id)!)));

const fixed = (value: number) => value.toFixed(3);
for (const r of readings) console.log(`${r.name}: periodicity ${fixed(r.periodicity)} persistence ${fixed(r.persistence)} bpm ${r.bpm}`);
const none = readings.filter((r) => !r.music);
const weak = readings.filter((r) => r.music && r.periodicity < 0.12);
console.log(
  `without a pulse (${none.length}): periodicity at most ${fixed(Math.max(...none.map((r) => r.periodicity)))}, persistence at most ${fixed(Math.max(...none.map((r) => r.persistence)))}; with a BPM: ${none.filter((r) => r.bpm !== null).length}`,
);
console.log(
  `tuning pieces with periodicity under 0.12 (${weak.length}): persistence at least ${fixed(Math.min(...weak.map((r) => r.persistence)))}; without a BPM: ${readings.filter((r) => r.music && r.bpm === null).length} of ${pieces.length}`,
);
