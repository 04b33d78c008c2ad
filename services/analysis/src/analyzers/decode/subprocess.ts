import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { AnalysisError } from '../errors.js';

/** Most of a subprocess's stderr kept (its end), for the error of a failed run. */
const STDERR_TAIL_CHARS = 2_000;

export interface SubprocessSpec {
  /** `ffmpeg` or `ffprobe`: names the tool in errors. */
  tool: string;
  binary: string;
  args: readonly string[];
  /** Output pipes besides stdout (fd 3, 4, …). */
  extraPipes?: number;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Replaced by `<input>` in the stderr kept for errors. */
  inputPath: string;
}

export interface Subprocess {
  /** stdout, then fd 3, 4, … */
  outputs: Readable[];
  /** Settles once the process has exited and every pipe is closed: resolves on exit status 0. */
  done: Promise<void>;
  /** Stops the process; `done` rejects with `error` (the first failure wins). */
  fail(error: Error): void;
}

/**
 * Runs ffmpeg or ffprobe with no stdin, a timeout (SIGKILL), the caller's abort signal and a
 * bounded stderr. A binary that cannot be started is `decoder_unavailable`; a non-zero exit is
 * `unreadable_audio` with the end of stderr (input path redacted) in its details.
 */
export function runSubprocess(spec: SubprocessSpec): Subprocess {
  const extra = spec.extraPipes ?? 0;
  const child = spawn(spec.binary, [...spec.args], {
    stdio: ['ignore', 'pipe', 'pipe', ...Array.from({ length: extra }, () => 'pipe' as const)],
  });
  const outputs = [child.stdout!, ...Array.from({ length: extra }, (_, i) => child.stdio[3 + i] as Readable)];
  let failure: Error | null = null;
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL_CHARS);
  });

  const fail = (error: Error) => {
    failure ??= error;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const timer = setTimeout(
    () => fail(new AnalysisError('analysis_timeout', `${spec.tool} did not finish within ${spec.timeoutMs} ms`, { timeoutMs: spec.timeoutMs })),
    spec.timeoutMs,
  );
  const onAbort = () => fail(new AnalysisError('analysis_aborted', `${spec.tool} was stopped: the analysis was aborted`));
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });

  const done = new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      fail(new AnalysisError('decoder_unavailable', `${spec.tool} could not be started (${error.code ?? error.message}); install ffmpeg or set ${spec.tool.toUpperCase()}_PATH`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      if (code === 0) return resolve();
      reject(
        new AnalysisError('unreadable_audio', `${spec.tool} could not read the audio (${signal ?? `exit status ${code}`})`, {
          stderr: redact(stderr, spec.inputPath),
        }),
      );
    });
  });
  return { outputs, done, fail };
}

function redact(text: string, path: string): string {
  return (path ? text.split(path).join('<input>') : text).trim();
}
