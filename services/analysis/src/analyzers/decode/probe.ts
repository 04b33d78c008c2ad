import type { Readable } from 'node:stream';
import type { TechnicalResult } from '@catalog/contracts';
import { AnalysisError } from '../errors.js';
import { runSubprocess } from './subprocess.js';

/** Largest ffprobe answer read (its JSON for one stream is well under 2 KiB). */
const MAX_PROBE_OUTPUT = 64 * 1024;

/** Codecs that keep every bit; the others (mp3, aac, opus, vorbis, a-law, …) have no bit depth. */
const LOSSLESS_CODECS = /^(pcm_(s|u|f)\d+(le|be|_planar)?|pcm_s24daud|flac|alac|wavpack|ape|tta|mlp|truehd|mp4als|tak|wmalossless)$/;

export interface ProbeOptions {
  ffprobePath: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** `technical`, which also tells the decoder the stream's rate and channels. */
export async function probeAudio(path: string, options: ProbeOptions): Promise<TechnicalResult> {
  const run = runSubprocess({
    tool: 'ffprobe',
    binary: options.ffprobePath,
    args: [
      '-v',
      'error',
      '-protocol_whitelist',
      'file,pipe',
      '-select_streams',
      'a:0',
      '-show_entries',
      'format=format_name,duration,bit_rate:stream=codec_name,sample_rate,channels,channel_layout,bits_per_raw_sample,bits_per_sample,bit_rate,duration',
      '-of',
      'json',
      `file:${path}`,
    ],
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    inputPath: path,
  });
  const [output] = await Promise.all([readBounded(run.outputs[0]!, MAX_PROBE_OUTPUT), run.done]);
  return parseProbe(output);
}

interface ProbeJson {
  streams?: Array<Record<string, string | number | undefined>>;
  format?: Record<string, string | undefined>;
}

function parseProbe(output: string): TechnicalResult {
  let parsed: ProbeJson;
  try {
    parsed = JSON.parse(output) as ProbeJson;
  } catch {
    throw new AnalysisError('unreadable_audio', 'ffprobe gave no readable description of the file');
  }
  const stream = parsed.streams?.[0];
  const format = parsed.format ?? {};
  const sampleRate = positiveInteger(stream?.sample_rate);
  const channels = positiveInteger(stream?.channels);
  if (!stream || !sampleRate || !channels) throw new AnalysisError('unreadable_audio', 'the file has no audio stream');
  const codec = String(stream.codec_name ?? 'unknown');
  const seconds = Number(format.duration ?? stream.duration);
  return {
    container: String(format.format_name ?? 'unknown'),
    codec,
    sampleRate,
    channels,
    channelLayout: typeof stream.channel_layout === 'string' && stream.channel_layout ? stream.channel_layout : null,
    bitDepth: LOSSLESS_CODECS.test(codec) ? (positiveInteger(stream.bits_per_raw_sample) ?? positiveInteger(stream.bits_per_sample)) : null,
    bitrate: positiveInteger(stream.bit_rate) ?? positiveInteger(format.bit_rate),
    durationMs: Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null,
  };
}

function positiveInteger(value: string | number | undefined): number | null {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : null;
}

async function readBounded(stream: Readable, limit: number): Promise<string> {
  let text = '';
  stream.setEncoding('utf8');
  for await (const chunk of stream as AsyncIterable<string>) {
    if (text.length < limit) text += chunk.slice(0, limit - text.length);
  }
  return text;
}
