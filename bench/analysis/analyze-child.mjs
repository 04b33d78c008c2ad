// The measured worker of bench/analysis: analyses one file with the built engine
// (@catalog/analysis/analyzers, services/analysis/dist) and prints one JSON line: wall seconds,
// its own peak RSS (getrusage maxrss), its CPU during the analysis and its subprocesses' (ffprobe,
// ffmpeg).
// Plain JavaScript so that no TypeScript loader sits in the process whose memory is measured.
import { readFileSync } from 'node:fs';
import { analyzeFile } from '@catalog/analysis/analyzers';

const [file, types] = process.argv.slice(2);
const cpuBefore = process.cpuUsage();
const started = performance.now();
const results = await analyzeFile(file, types.split(','), { timeoutMs: 600_000 });
const seconds = (performance.now() - started) / 1000;
const usage = process.resourceUsage();
const cpu = process.cpuUsage(cpuBefore);
// /proc/self/stat fields 16 and 17: CPU of the children waited for (ffprobe, ffmpeg), in clock ticks.
const stat = readFileSync('/proc/self/stat', 'utf8');
const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
const ticks = 100;
const childCpuSeconds = (Number(fields[13]) + Number(fields[14])) / ticks;
const summary = {
  loudness: results.loudness && { integratedLufs: results.loudness.integratedLufs, truePeakDbtp: results.loudness.truePeakDbtp },
  tempo: results.tempo?.bpm,
  key: results.key?.key,
  waveformLength: results.waveform?.length,
  fingerprintItems: results.fingerprint?.raw.length,
};
process.stdout.write(
  `${JSON.stringify({ seconds, maxRssMiB: usage.maxRSS / 1024, cpuSeconds: (cpu.user + cpu.system) / 1e6, childCpuSeconds, summary })}\n`,
);
