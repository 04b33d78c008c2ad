/**
 * bench/accuracy/estimators.ts: the estimates of every system on every file. The project's
 * analyzers run in this process (analyzeFile with key and tempo: one decode, as the service runs
 * them); Essentia runs in its own Python process over all the files (essentia_eval.py, in the
 * virtual environment setup.sh makes), its results cached beside the audio by file and Essentia
 * version (the baseline does not change between runs of our analyzers; its times per file are
 * those of the run that filled the cache: BENCH_ACCURACY_ESSENTIA=fresh runs it again).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeFile, KeyAnalyzer, TempoAnalyzer } from '@catalog/analysis/analyzers';
import { repoRoot } from '../support/processes.js';

export interface Estimate {
  key: string | null;
  keyStrength: number;
  bpm: number | null;
  tempoConfidence: number;
  /** Seconds for this file: decode and both analyses (Essentia: decode, one key profile, rhythm). */
  seconds: number;
}

/** Seconds of audio in each file (ffprobe's duration, read by analyzeFile). */
export const durations = new Map<string, number>();

/** System name to its estimate of each file. */
export type Estimates = Record<string, Map<string, Estimate>>;

export const ESSENTIA_PROFILES = ['edma', 'temperley', 'krumhansl'] as const;
export const SYSTEMS = ['catalog', ...ESSENTIA_PROFILES.map((profile) => `essentia-${profile}`)] as const;

/**
 * The project's key and BPM of audio already decoded (mono, at `rate`), in this process: for the
 * tuning scripts that degrade or rewrite the audio themselves (robustness.ts, homophonic-variants.ts).
 */
export function keyAndBpmOf(samples: Float32Array, rate: number): { key: string | null; bpm: number | null } {
  const key = new KeyAnalyzer(rate);
  const tempo = new TempoAnalyzer(rate);
  key.write(samples, samples.length);
  tempo.write(samples, samples.length);
  return { key: key.result().key, bpm: tempo.result().bpm };
}

export async function catalogEstimates(files: string[]): Promise<Map<string, Estimate>> {
  const estimates = new Map<string, Estimate>();
  for (const file of files) {
    const started = process.hrtime.bigint();
    const { key, tempo, technical } = await analyzeFile(file, ['technical', 'key', 'tempo']);
    durations.set(file, (technical.durationMs ?? 0) / 1000);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    estimates.set(file, { key: key.key, keyStrength: key.strength, bpm: tempo.bpm, tempoConfidence: tempo.confidence, seconds });
  }
  return estimates;
}

interface EssentiaLine {
  file: string;
  decodeSeconds: number;
  key: Record<string, { key: string; strength: number; seconds: number }>;
  tempo: { bpm: number; confidence: number; seconds: number };
}

/** Essentia's estimates, one entry per profile ("essentia-edma", …); `python` is the venv's. */
export async function essentiaEstimates(python: string, files: string[], cacheDir: string): Promise<Estimates> {
  const cacheFile = join(cacheDir, 'essentia-results.json');
  const fresh = process.env.BENCH_ACCURACY_ESSENTIA === 'fresh';
  const cached: Record<string, EssentiaLine> = existsSync(cacheFile) && !fresh ? JSON.parse(readFileSync(cacheFile, 'utf8')) : {};
  const missing = files.filter((file) => !cached[file]);
  if (missing.length > 0) {
    for (const line of await runEssentia(python, missing)) cached[line.file] = line;
    writeFileSync(cacheFile, JSON.stringify(cached));
  }
  const estimates: Estimates = {};
  for (const profile of ESSENTIA_PROFILES) {
    estimates[`essentia-${profile}`] = new Map(
      files.map((file) => {
        const line = cached[file]!;
        const key = line.key[profile]!;
        const seconds = line.decodeSeconds + key.seconds + line.tempo.seconds;
        return [file, { key: key.key, keyStrength: key.strength, bpm: line.tempo.bpm, tempoConfidence: line.tempo.confidence, seconds }];
      }),
    );
  }
  return estimates;
}

function runEssentia(python: string, files: string[]): Promise<EssentiaLine[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(repoRoot, 'bench/accuracy/essentia_eval.py')], {
      stdio: ['pipe', 'pipe', 'ignore'],
      timeout: 7_200_000,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`essentia_eval.py exited ${code}`));
      resolve(
        output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as EssentiaLine),
      );
    });
    child.stdin.end(files.join('\n') + '\n');
  });
}
