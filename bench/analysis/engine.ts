/**
 * bench/analysis/engine.ts: the analysis engine on a 5-minute 44.1 kHz stereo file of rendered music (drums,
 * piano and bass from the General MIDI sound font, made by this benchmark with fluidsynth), each
 * analyzer alone and all seven in one pass, against ffmpeg's own `ebur128=peak=true` pass on the
 * same file in the same run. Each run is a child process running the built engine
 * (bench/analysis/analyze-child.mjs, the analysis service's Node flags): × realtime from its wall
 * time, its own peak RSS, and the CPU of it and its ffprobe/ffmpeg subprocesses.
 *
 * Run by bench/analysis/run.ts (`npm run bench -- analysis`, which builds the services first).
 * Needs ffmpeg, fluidsynth and the sound font (scripts/lib/infra.sh ensure_audio_tools). BENCH_ANALYSIS_RUNS (default 3)
 * runs per configuration; BENCH_ANALYSIS_SECONDS (default 300) the file's length; BENCH_DIR
 * (default the system temp dir) where the file is made. Results: bench/results/analysis.json.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceNodeFlags } from '@catalog/platform';
import { demoSong, renderSong } from '@catalog/testing';
import { machine, repoRoot } from '../support/processes.js';

const RUNS = Number(process.env.BENCH_ANALYSIS_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_ANALYSIS_SECONDS ?? 300);
const BPM = 120;
const CONFIGURATIONS: string[][] = [
  ['technical'],
  ['loudness'],
  ['cue_points'],
  ['tempo'],
  ['key'],
  ['waveform'],
  ['fingerprint'],
  ['technical', 'loudness', 'cue_points', 'tempo', 'key', 'waveform', 'fingerprint'],
];
const TARGET = { realtime: 50, rssMiB: 200 };

interface Run {
  seconds: number;
  maxRssMiB: number;
  cpuSeconds: number;
  childCpuSeconds: number;
  summary?: unknown;
}

function analyse(file: string, types: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...serviceNodeFlags('analysis'), join(repoRoot, 'bench/analysis/analyze-child.mjs'), file, types.join(',')],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
        timeout: 900_000,
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(output) as Run) : reject(new Error(`analysis of ${types} exited ${code}`)),
    );
  });
}

/** ffmpeg's own loudness pass; its peak RSS and CPU read from /proc while it runs (every 20 ms). */
function ffmpegEbur128(file: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('ffmpeg', ['-nostdin', '-hide_banner', '-nostats', '-i', file, '-af', 'ebur128=peak=true', '-f', 'null', '-'], {
      stdio: ['ignore', 'ignore', 'ignore'],
      timeout: 600_000,
    });
    let maxRssMiB = 0;
    let cpuSeconds = 0;
    const poll = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (hwm) maxRssMiB = Math.max(maxRssMiB, Number(hwm[1]) / 1024);
        const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpuSeconds = (Number(fields[11]) + Number(fields[12])) / 100;
      } catch {
        // exited between two polls
      }
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      if (code !== 0) return reject(new Error(`ffmpeg exited ${code}`));
      resolve({ seconds: (performance.now() - started) / 1000, maxRssMiB, cpuSeconds, childCpuSeconds: 0 });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

function summarise(name: string, runs: Run[]) {
  const seconds = median(runs.map((r) => r.seconds));
  const cpu = median(runs.map((r) => r.cpuSeconds + r.childCpuSeconds));
  return {
    name,
    runs: runs.length,
    medianSeconds: round(seconds, 3),
    realtime: round(SECONDS / seconds),
    realtimeRange: [round(SECONDS / Math.max(...runs.map((r) => r.seconds))), round(SECONDS / Math.min(...runs.map((r) => r.seconds)))],
    cpuSeconds: round(cpu, 2),
    realtimePerCpuSecond: round(SECONDS / cpu),
    peakRssMiB: round(Math.max(...runs.map((r) => r.maxRssMiB)), 0),
    summary: runs[0]!.summary,
  };
}

/** Each analyzer alone and all in one pass against ffmpeg's loudness pass; writes bench/results/analysis.json. */
export async function engineBench(): Promise<void> {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'catalog-bench-analysis-'));
  try {
    const file = join(dir, 'rendered.wav');
    const music = join(dir, 'music.wav');
    const bars = Math.round((SECONDS * BPM) / 240);
    console.error(`[analysis] rendering ${SECONDS} s of music (${bars} bars at ${BPM} BPM, A minor) with fluidsynth`);
    await renderSong({ bpm: BPM, notes: demoSong(bars, 9, 'minor'), programs: { 1: 33 } }, file, { effects: true });
    // Cut to the length exactly (the render ends with the instruments' release).
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', file, '-t', String(SECONDS), '-c:a', 'pcm_s16le', music], {
      timeout: 300_000,
    });
    const loadBefore = loadavg()[0]!;
    const rows = [];
    const reference = [];
    for (let run = 0; run < RUNS; run++) reference.push(await ffmpegEbur128(music));
    rows.push(summarise('ffmpeg ebur128=peak=true (reference)', reference));
    for (const types of CONFIGURATIONS) {
      const runs: Run[] = [];
      for (let run = 0; run < RUNS; run++) runs.push(await analyse(music, types));
      rows.push(summarise(types.length > 1 ? 'all seven in one pass' : types[0]!, runs));
      console.error(`[analysis] ${rows.at(-1)!.name}: ${rows.at(-1)!.realtime}x realtime, ${rows.at(-1)!.peakRssMiB} MiB`);
    }
    const all = rows.at(-1)!;
    const result = {
      benchmark: 'analysis',
      date: new Date().toISOString(),
      machine: {
        ...machine(),
        ffmpeg: execFileSync('ffmpeg', ['-version'], { timeout: 10_000 }).toString().split('\n')[0],
        loadAverageBefore: round(loadBefore, 2),
        loadAverageAfter: round(loadavg()[0]!, 2),
      },
      file: {
        seconds: SECONDS,
        sampleRate: 44_100,
        channels: 2,
        format: 'WAV 16-bit',
        content: `rendered General MIDI music, ${BPM} BPM, A minor`,
      },
      runsPerConfiguration: RUNS,
      rows,
      targets: TARGET,
      met: { realtime: all.realtime >= TARGET.realtime, rss: all.peakRssMiB < TARGET.rssMiB },
    };
    writeFileSync(join(repoRoot, 'bench/results/analysis.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log('| configuration | × realtime (median, range) | CPU s (node + ffmpeg) | × realtime per CPU second | peak RSS MiB |');
    console.log('|---|---|---|---|---|');
    for (const row of rows)
      console.log(
        `| ${row.name} | ${row.realtime} (${row.realtimeRange.join('–')}) | ${row.cpuSeconds} | ${row.realtimePerCpuSecond} | ${row.peakRssMiB} |`,
      );
    console.log(`load average before ${result.machine.loadAverageBefore}, after ${result.machine.loadAverageAfter}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
