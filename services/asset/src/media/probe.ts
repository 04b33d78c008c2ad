import { spawn } from 'node:child_process';

export interface ProbeResult {
  /** Whether ffprobe found an audio stream it can decode. */
  audio: boolean;
  durationMs: number | null;
}

export type AudioProbe = (location: string) => Promise<ProbeResult>;

/**
 * Reads an audio file's duration with ffprobe as a subprocess (headers only; the file is not
 * decoded). `location` is a path or a short-lived URL: it is never logged, and ffprobe's messages,
 * which may repeat it, are dropped. A missing ffprobe binary is an error of the deployment.
 */
export function ffprobeAudio(ffprobePath: string, timeoutMs: number): AudioProbe {
  return (location) =>
    new Promise<ProbeResult>((resolve, reject) => {
      const child = spawn(
        ffprobePath,
        [
          '-v', 'error',
          '-protocol_whitelist', 'file,http,https,tcp,tls,crypto',
          '-show_entries', 'format=duration:stream=codec_type',
          '-of', 'json',
          location,
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      let output = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        if (output.length < 64 * 1024) output += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new Error(`ffprobe could not be started (${error.code ?? error.message}); install ffmpeg or set FFPROBE_PATH`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (code !== 0) {
          resolve({ audio: false, durationMs: null });
          return;
        }
        resolve(parseProbeOutput(output));
      });
    });
}

export function parseProbeOutput(output: string): ProbeResult {
  try {
    const parsed = JSON.parse(output) as { streams?: Array<{ codec_type?: string }>; format?: { duration?: string } };
    const audio = (parsed.streams ?? []).some((s) => s.codec_type === 'audio');
    const seconds = Number(parsed.format?.duration);
    return { audio, durationMs: audio && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null };
  } catch {
    return { audio: false, durationMs: null };
  }
}
