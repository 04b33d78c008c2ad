import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SineWavOptions {
  /** Samples a second (default 44,100; 8,000 makes small files). */
  sampleRate?: number;
  /** Default 1 (mono). */
  channels?: number;
}

/** Writes a WAV file of a 440 Hz tone made by ffmpeg (16-bit PCM), `seconds` long, to `path`. */
export async function writeSineWav(path: string, seconds: number, options: SineWavOptions = {}): Promise<void> {
  const { sampleRate = 44_100, channels = 1 } = options;
  await run('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:sample_rate=${sampleRate}:duration=${seconds}`,
    '-ac',
    String(channels),
    '-c:a',
    'pcm_s16le',
    path,
  ]);
}

/** `writeSineWav`, as bytes in memory. */
export async function sineWav(seconds: number, options: SineWavOptions = {}): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-test-wav-'));
  try {
    const path = join(dir, 'tone.wav');
    await writeSineWav(path, seconds, options);
    return await readFile(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
