import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { AnalysisError } from '../errors.js';

/** Most of a subprocess's stderr kept (its end), for the error of a failed run. */
const STDERR_TAIL_CHARS = 2_000;
/** After the process exits, how long its pipes may take to close (drained) before they are cut. */
const EXIT_GRACE_MS = 2_000;

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
    () =>
      fail(new AnalysisError('analysis_timeout', `${spec.tool} did not finish within ${spec.timeoutMs} ms`, { timeoutMs: spec.timeoutMs })),
    spec.timeoutMs,
  );
  const onAbort = () => fail(new AnalysisError('analysis_aborted', `${spec.tool} was stopped: the analysis was aborted`));
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });

  const done = awaitExit(child, outputs, spec, {
    failure: () => failure,
    fail,
    stderr: () => stderr,
    cleanUp: () => {
      clearTimeout(timer);
      spec.signal?.removeEventListener('abort', onAbort);
    },
  });
  return { outputs, done, fail };
}

interface ExitState {
  failure(): Error | null;
  fail(error: Error): void;
  stderr(): string;
  cleanUp(): void;
}

/**
 * Settles once the process has exited and its pipes are closed: resolves on exit status 0. A
 * process that left children holding its pipes does not keep the analysis waiting: they are cut
 * at once after a failure, EXIT_GRACE_MS after an exit.
 */
function awaitExit(child: ChildProcess, outputs: Readable[], spec: SubprocessSpec, state: ExitState): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let grace: NodeJS.Timeout | undefined;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(grace);
      state.cleanUp();
      const failure = state.failure();
      if (failure) return reject(failure);
      if (exit?.code === 0) return resolve();
      const how = exit?.signal ?? `exit status ${exit?.code}`;
      reject(
        new AnalysisError('unreadable_audio', `${spec.tool} could not read the audio (${how})`, {
          stderr: redact(state.stderr(), spec.inputPath),
        }),
      );
    };
    const closePipes = () => {
      for (const stream of [...outputs, child.stderr!]) stream.destroy();
      settle();
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      state.fail(
        new AnalysisError(
          'decoder_unavailable',
          `${spec.tool} could not be started (${error.code ?? error.message}); install ffmpeg or set ${spec.tool.toUpperCase()}_PATH`,
        ),
      );
      closePipes();
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      if (state.failure()) closePipes();
      else grace = setTimeout(closePipes, EXIT_GRACE_MS);
    });
    child.once('close', settle);
  });
}

function redact(text: string, path: string): string {
  return (path ? text.split(path).join('<input>') : text).trim();
}
