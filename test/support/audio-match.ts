import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The rate files are compared at: enough for where a song is (0.5 ms), cheap to correlate. */
export const MATCH_RATE = 4_000;

/** A file decoded to mono float samples at `MATCH_RATE` (ffmpeg resamples with its low-pass). */
export async function decodeMono(path: string): Promise<Float32Array> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', path, '-ac', '1', '-ar', String(MATCH_RATE), '-f', 'f32le', '-'], {
    encoding: 'buffer',
    maxBuffer: 256 * 1024 * 1024,
  });
  const bytes = stdout as Buffer;
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/**
 * Where `needle` best matches `haystack` (normalised cross-correlation, which a gain does not
 * change), searching lags from `fromSecond` to `toSecond`: the lag in seconds and its correlation.
 */
export function bestMatch(
  haystack: Float32Array,
  needle: Float32Array,
  fromSecond: number,
  toSecond: number,
): { at: number; score: number } {
  const energy = (from: number) => {
    let sum = 0;
    for (let i = 0; i < needle.length; i++) sum += haystack[from + i]! ** 2;
    return sum;
  };
  let needleEnergy = 0;
  for (const v of needle) needleEnergy += v * v;
  let best = { at: 0, score: -Infinity };
  const first = Math.max(0, Math.floor(fromSecond * MATCH_RATE));
  const last = Math.min(haystack.length - needle.length, Math.ceil(toSecond * MATCH_RATE));
  for (let lag = first; lag <= last; lag++) {
    let dot = 0;
    for (let i = 0; i < needle.length; i++) dot += haystack[lag + i]! * needle[i]!;
    const score = dot / Math.sqrt(needleEnergy * energy(lag) + 1e-12);
    if (score > best.score) best = { at: lag / MATCH_RATE, score };
  }
  return best;
}

/** Seconds `from` to `to` of decoded samples. */
export const window = (samples: Float32Array, from: number, to: number): Float32Array =>
  samples.subarray(Math.round(from * MATCH_RATE), Math.round(to * MATCH_RATE));

/** Integrated loudness (LUFS) of seconds `from` to `to` of a file, as ffmpeg's ebur128 filter measures it. */
export async function integratedLoudness(path: string, from: number, to: number): Promise<number> {
  const { stderr } = await run('ffmpeg', [
    '-hide_banner',
    '-nostats',
    '-ss',
    from.toFixed(3),
    '-t',
    (to - from).toFixed(3),
    '-i',
    path,
    '-af',
    'ebur128',
    '-f',
    'null',
    '-',
  ]);
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const match = /I:\s+(-?[\d.]+) LUFS/.exec(summary);
  if (!match) throw new Error(`no integrated loudness in ffmpeg's answer: ${summary}`);
  return Number(match[1]);
}
