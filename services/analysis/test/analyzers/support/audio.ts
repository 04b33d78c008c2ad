import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Longest one ffmpeg or sox command of the tests may take. */
const TOOL_TIMEOUT_MS = 120_000;

/** A temporary folder for one test file's audio, removed by `remove()` (afterAll). */
export function audioDir(name: string): { path(file: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `catalog-analyzers-${name}-`));
  return { path: (file) => join(dir, file), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Segment {
  seconds: number;
  /** Peak level of a sine (dBFS); null for digital silence. */
  dbfs: number | null;
  hz?: number;
}

/**
 * Synthesises a 32-bit float WAV file with sox (`sox -n … synth <effects>`): e.g.
 * `synthFloat(path, ['4', 'square', '997', 'vol', '0.9'], { rate: 44_100 })`.
 */
export function synthFloat(path: string, synth: string[], options: { rate?: number; channels?: number } = {}): Promise<void> {
  const { rate = 48_000, channels = 2 } = options;
  return sox(['-n', '-r', String(rate), '-c', String(channels), '-e', 'floating-point', '-b', '32', path, 'synth', ...synth]);
}

/**
 * Writes sine segments back to back (each its own level, 1 kHz unless said) to a 32-bit float WAV
 * file: sox synthesises each segment at full scale and scales it exactly, then joins them.
 */
export async function writeSegments(path: string, segments: Segment[], options: { rate?: number; channels?: number } = {}): Promise<void> {
  const parts = segments.map((_, index) => `${path}.part${index}.wav`);
  await Promise.all(
    segments.map((segment, index) =>
      synthFloat(
        parts[index]!,
        [String(segment.seconds), 'sine', String(segment.hz ?? 1000), 'vol', String(segment.dbfs === null ? 0 : 10 ** (segment.dbfs / 20))],
        options,
      ),
    ),
  );
  if (parts.length === 1) await rename(parts[0]!, path);
  else {
    await sox([...parts, path]);
    await Promise.all(parts.map((part) => rm(part)));
  }
}

/** One 1 kHz sine per channel, each at its own peak level (dBFS). */
export async function writeChannels(path: string, dbfs: number[], seconds: number, rate = 48_000): Promise<void> {
  const expressions = dbfs.map((level) => `${10 ** (level / 20)}*sin(2*PI*1000*t)`);
  await ffmpeg(['-f', 'lavfi', '-i', `aevalsrc=${expressions.join('|')}:s=${rate}:d=${seconds}`, '-c:a', 'pcm_f32le', path]);
}

export async function ffmpeg(args: string[]): Promise<void> {
  await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args], { timeout: TOOL_TIMEOUT_MS });
}

export async function sox(args: string[]): Promise<void> {
  await run('sox', args, { timeout: TOOL_TIMEOUT_MS });
}

/** Re-encodes to MP3 (LAME VBR, as stations receive files). */
export async function toMp3(from: string, to: string): Promise<void> {
  await ffmpeg(['-i', from, '-c:a', 'libmp3lame', '-q:a', '4', to]);
}

/** ffmpeg's own EBU R128 reading (`ebur128=peak=true`): integrated, range, true peak. */
export async function ffmpegEbur128(path: string): Promise<{ integrated: number; range: number; truePeak: number }> {
  const { stderr } = await run(
    'ffmpeg',
    ['-nostdin', '-hide_banner', '-nostats', '-i', path, '-af', 'ebur128=peak=true', '-f', 'null', '-'],
    { maxBuffer: 64 * 1024 * 1024, timeout: TOOL_TIMEOUT_MS },
  );
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const value = (label: RegExp) => Number(label.exec(summary)?.[1]);
  return {
    integrated: value(/I:\s+(-?[\d.]+) LUFS/),
    range: value(/LRA:\s+(-?[\d.]+) LU/),
    truePeak: value(/True peak:\s+Peak:\s+(-?[\d.]+) dBFS/),
  };
}

/** Copies `cut` (where a song of a rendered medley starts and how long it lasts) of `source` to `path` with ffmpeg. */
export async function cutOut(source: string, cut: { startSeconds: number; seconds: number }, path: string): Promise<void> {
  await run(
    'ffmpeg',
    ['-nostdin', '-loglevel', 'error', '-y', '-ss', String(cut.startSeconds), '-t', String(cut.seconds), '-i', source, path],
    { timeout: TOOL_TIMEOUT_MS },
  );
}
