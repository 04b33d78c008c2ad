import type { Readable } from 'node:stream';
import { PcmFrameReader, type FrameSink } from './pcm-frames.js';
import { runSubprocess } from './subprocess.js';

/** Rate of the mono stream that tempo and key read (Chromaprint fingerprints at this rate too). */
export const LOW_RATE = 11_025;

export interface DecodeTargets {
  /** Every channel at the file's own rate (loudness, cue points, waveform). */
  full?: { channels: number; sink: FrameSink };
  /** Mono at LOW_RATE (tempo, key). */
  low?: { sink: FrameSink };
  /** Chromaprint's raw fingerprint of the first `maxSeconds` (ffmpeg's chromaprint muxer). */
  fingerprint?: { maxSeconds: number; onRaw: (raw: Uint32Array) => void };
}

export interface DecodeOptions {
  ffmpegPath: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

interface OutputPlan {
  label: string;
  filter: string;
  args: string[];
  /** Reads the output; a sink that throws calls `fail`, which stops ffmpeg. */
  consume(stream: Readable, fail: (error: Error) => void): void;
  finish?(): void;
}

/**
 * Decodes `path` once: one ffmpeg process whose filter graph splits the first audio stream into
 * the outputs asked for (`asplit`), each written to its own pipe (stdout, fd 3, fd 4) and read
 * chunk by chunk, so memory does not grow with the file's length. Resolves when ffmpeg has exited
 * and every sink has had every frame.
 */
export async function decodeOnce(path: string, targets: DecodeTargets, options: DecodeOptions): Promise<void> {
  const plans = outputPlans(targets);
  if (plans.length === 0) return;
  const split = `[0:a:0]asplit=${plans.length}${plans.map((p) => `[in_${p.label}]`).join('')}`;
  const graph = [split, ...plans.map((p) => `[in_${p.label}]${p.filter}[${p.label}]`)].join(';');
  const args = [
    '-nostdin',
    '-hide_banner',
    '-nostats',
    '-loglevel',
    'error',
    '-protocol_whitelist',
    'file,pipe',
    '-i',
    `file:${path}`,
    '-filter_complex',
    graph,
  ];
  plans.forEach((plan, index) => args.push('-map', `[${plan.label}]`, ...plan.args, `pipe:${index === 0 ? 1 : index + 2}`));
  const run = runSubprocess({
    tool: 'ffmpeg',
    binary: options.ffmpegPath,
    args,
    extraPipes: plans.length - 1,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    inputPath: path,
  });
  plans.forEach((plan, index) => {
    const stream = run.outputs[index]!;
    stream.on('error', (error: Error) => run.fail(error));
    plan.consume(stream, run.fail);
  });
  await run.done;
  for (const plan of plans) plan.finish?.();
}

function outputPlans(targets: DecodeTargets): OutputPlan[] {
  const plans: OutputPlan[] = [];
  if (targets.full) plans.push(pcmPlan('full', 'aformat=sample_fmts=flt', targets.full.channels, targets.full.sink));
  if (targets.low) plans.push(pcmPlan('low', `aformat=sample_fmts=flt:channel_layouts=mono,aresample=${LOW_RATE}`, 1, targets.low.sink));
  if (targets.fingerprint) plans.push(fingerprintPlan(targets.fingerprint.maxSeconds, targets.fingerprint.onRaw));
  return plans;
}

function pcmPlan(label: string, filter: string, channels: number, sink: FrameSink): OutputPlan {
  return {
    label,
    filter,
    args: ['-c:a', 'pcm_f32le', '-f', 'f32le'],
    consume(stream, fail) {
      const reader = new PcmFrameReader(channels, sink);
      let failed = false;
      stream.on('data', (chunk: Buffer) => {
        if (failed) return;
        try {
          reader.push(chunk);
        } catch (error) {
          failed = true;
          fail(error as Error);
        }
      });
    },
  };
}

function fingerprintPlan(maxSeconds: number, onRaw: (raw: Uint32Array) => void): OutputPlan {
  // About 8 sub-fingerprints of 4 bytes a second; the bound only guards against a broken muxer.
  const limit = maxSeconds * 64 + 4096;
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    label: 'fp',
    filter: `atrim=end=${maxSeconds}`,
    args: ['-f', 'chromaprint', '-fp_format', 'raw', '-algorithm', '1'],
    consume(stream) {
      stream.on('data', (chunk: Buffer) => {
        if (size + chunk.length <= limit) chunks.push(chunk);
        size += chunk.length;
      });
    },
    finish() {
      const bytes = Buffer.concat(chunks);
      const raw = new Uint32Array(Math.floor(Math.min(size, limit) / 4));
      for (let i = 0; i < raw.length; i++) raw[i] = bytes.readUInt32LE(i * 4);
      onRaw(raw);
    },
  };
}
