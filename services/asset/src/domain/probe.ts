import { spawn } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { AppError } from '@catalog/platform';
import { AUDIO_FORMATS } from './kinds.js';

export interface ProbeResult {
  /** Whether ffprobe found an audio stream it can decode, in one of the accepted formats. */
  audio: boolean;
  durationMs: number | null;
}

/** Reads the audio file at an absolute local path. */
export type AudioProbe = (path: string) => Promise<ProbeResult>;

/** ffprobe could not be run at all: an error of the deployment, not of the file (503, the asset keeps waiting). */
function probeUnavailable(ffprobePath: string, reason: string): AppError {
  return new AppError(
    503,
    'service_unavailable',
    `audio cannot be checked right now: ffprobe could not be started at "${ffprobePath}" (FFPROBE_PATH; ${reason}); confirm again later`,
  );
}

/**
 * The ffprobe arguments for an uploaded (untrusted) file (decision 0059): the `file` protocol
 * only, so that nothing in the file (an HLS or concat playlist, a reference in a container) makes
 * ffprobe open a network address or another local file; only the demuxers of the accepted audio
 * formats; headers only (the file is not decoded).
 */
function probeArguments(path: string): string[] {
  if (!isAbsolute(path)) throw new Error('ffprobe reads absolute local paths only');
  return [
    '-v',
    'error',
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    AUDIO_FORMATS.join(','),
    '-show_entries',
    'format=duration:stream=codec_type',
    '-of',
    'json',
    `file:${path}`,
  ];
}

/**
 * Reads an audio file's duration with ffprobe as a subprocess, killed after `timeoutMs`. A file
 * ffprobe refuses (not audio, a format not accepted, a timeout) is `audio: false`; ffprobe that
 * cannot be started rejects with 503 `service_unavailable`. ffprobe's messages are dropped.
 */
export function ffprobeAudio(ffprobePath: string, timeoutMs: number): AudioProbe {
  return (path) =>
    new Promise<ProbeResult>((resolve, reject) => {
      const child = spawn(ffprobePath, probeArguments(path), { stdio: ['ignore', 'pipe', 'ignore'] });
      let output = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        if (output.length < 64 * 1024) output += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(probeUnavailable(ffprobePath, error.code ?? error.message));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code === 0 ? parseProbeOutput(output) : { audio: false, durationMs: null });
      });
    });
}

function parseProbeOutput(output: string): ProbeResult {
  try {
    const parsed = JSON.parse(output) as { streams?: Array<{ codec_type?: string }>; format?: { duration?: string } };
    const audio = (parsed.streams ?? []).some((s) => s.codec_type === 'audio');
    const seconds = Number(parsed.format?.duration);
    return { audio, durationMs: audio && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null };
  } catch {
    return { audio: false, durationMs: null };
  }
}

/**
 * The readiness check of the service's ffprobe (`ffprobe -version`, at most `timeoutMs`): fails
 * with a message naming the tool and FFPROBE_PATH while it cannot be run. A success is kept; a
 * failure is checked again on the next call (the tool may be installed meanwhile).
 */
export function ffprobeReadiness(ffprobePath: string, timeoutMs = 5_000): () => Promise<void> {
  let found = false;
  return async () => {
    if (found) return;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(ffprobePath, ['-version'], { stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new Error(
            `ffprobe could not be started at "${ffprobePath}" (${error.code ?? error.message}): install ffmpeg or set FFPROBE_PATH`,
          ),
        );
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else
          reject(
            new Error(`ffprobe at "${ffprobePath}" (FFPROBE_PATH) did not run: ${signal ? `killed (${signal})` : `exit code ${code}`}`),
          );
      });
    });
    found = true;
  };
}
