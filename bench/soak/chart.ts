import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The soak's picture: RSS of every process per minute (its chart limit dashed) above the p99 of
 * every request class per minute (log scale), the kills marked as vertical lines named by the
 * service killed. Drawn as SVG and turned into a PNG by headless Chromium (CHROMIUM, default
 * `chromium`); without a browser the SVG is kept beside where the PNG would be.
 */
export interface ChartInput {
  minutes: Array<{
    minute: number;
    processes: Record<string, { rssMiB: number }>;
    requests: Record<string, { p99Ms: number; count: number }>;
  }>;
  kills: Array<{ minute: number; service: string }>;
  memoryLimitsMiB: Record<string, number>;
}

const WIDTH = 1400;
const PANEL = 380;
const LEFT = 70;
const RIGHT = 230;
const COLORS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#7f7f7f',
  '#bcbd22',
  '#17becf',
  '#393b79',
  '#637939',
  '#8c6d31',
  '#843c39',
  '#7b4173',
  '#3182bd',
];

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function panel(
  top: number,
  title: string,
  series: Array<{ name: string; points: Array<[number, number]>; dashed?: boolean; color: string }>,
  x: { max: number },
  y: { min: number; max: number; log: boolean; unit: string },
  kills: ChartInput['kills'],
): string {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const sx = (minute: number) => LEFT + (minute / Math.max(1, x.max)) * plotWidth;
  const scale = (v: number) => (y.log ? Math.log10(Math.max(v, y.min)) : v);
  const sy = (v: number) => top + PANEL - ((scale(v) - scale(y.min)) / (scale(y.max) - scale(y.min) || 1)) * PANEL;
  const parts: string[] = [`<text x="${LEFT}" y="${top - 10}" font-size="16" font-weight="bold">${escape(title)}</text>`];
  parts.push(`<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${PANEL}" fill="none" stroke="#999"/>`);
  const ticks = y.log
    ? Array.from({ length: Math.ceil(Math.log10(y.max / y.min)) + 1 }, (_, i) => y.min * 10 ** i).filter((v) => v <= y.max)
    : Array.from({ length: 6 }, (_, i) => y.min + ((y.max - y.min) * i) / 5);
  for (const tick of ticks) {
    parts.push(`<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${sy(tick)}" y2="${sy(tick)}" stroke="#eee"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${sy(tick) + 4}" font-size="11" text-anchor="end">${Math.round(tick)} ${y.unit}</text>`);
  }
  for (let minute = 0; minute <= x.max; minute += x.max > 20 ? 10 : 1) {
    parts.push(`<text x="${sx(minute)}" y="${top + PANEL + 16}" font-size="11" text-anchor="middle">${minute}</text>`);
  }
  for (const kill of kills) {
    parts.push(
      `<line x1="${sx(kill.minute)}" x2="${sx(kill.minute)}" y1="${top}" y2="${top + PANEL}" stroke="#d00" stroke-dasharray="3,3"/>`,
    );
    parts.push(`<text x="${sx(kill.minute) + 3}" y="${top + 12}" font-size="10" fill="#d00">kill ${escape(kill.service)}</text>`);
  }
  let legend = 0;
  series.forEach((line) => {
    if (line.points.length === 0) return;
    const path = line.points.map(([m, v], j) => `${j === 0 ? 'M' : 'L'}${sx(m).toFixed(1)},${sy(v).toFixed(1)}`).join(' ');
    parts.push(
      `<path d="${path}" fill="none" stroke="${line.color}" stroke-width="${line.dashed ? 1 : 1.8}"${line.dashed ? ' stroke-dasharray="6,4"' : ''}/>`,
    );
    if (!line.dashed) {
      const y = top + 6 + (legend += 1) * 16 - 16;
      parts.push(`<rect x="${WIDTH - RIGHT + 12}" y="${y}" width="12" height="3" fill="${line.color}"/>`);
      parts.push(`<text x="${WIDTH - RIGHT + 30}" y="${y + 5}" font-size="11">${escape(line.name)}</text>`);
    }
  });
  return parts.join('\n');
}

export function soakSvg(input: ChartInput): string {
  const services = Object.keys(input.memoryLimitsMiB);
  const xMax = Math.max(1, input.minutes.length);
  const rss = services.flatMap((service, i) => {
    const color = COLORS[i % COLORS.length]!;
    const points = input.minutes.map((m): [number, number] => [m.minute + 1, m.processes[service]?.rssMiB ?? 0]);
    const limit: Array<[number, number]> = [
      [0, input.memoryLimitsMiB[service]!],
      [xMax, input.memoryLimitsMiB[service]!],
    ];
    return [
      { name: `${service} (limit ${input.memoryLimitsMiB[service]} MiB)`, points, color },
      { name: `${service} limit`, points: limit, dashed: true, color },
    ];
  });
  const classes = [...new Set(input.minutes.flatMap((m) => Object.keys(m.requests)))].sort();
  const p99 = classes.map((name, i) => ({
    name,
    color: COLORS[i % COLORS.length]!,
    points: input.minutes
      .filter((m) => (m.requests[name]?.count ?? 0) > 0 && Number.isFinite(m.requests[name]!.p99Ms))
      .map((m): [number, number] => [m.minute + 1, m.requests[name]!.p99Ms]),
  }));
  const rssMax = Math.max(...Object.values(input.memoryLimitsMiB), ...rss.flatMap((s) => s.points.map((p) => p[1]))) * 1.05;
  const p99Max = Math.max(10, ...p99.flatMap((s) => s.points.map((p) => p[1])));
  const height = 2 * PANEL + 140;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    panel(
      40,
      'RSS per process (MiB) by minute; dashed: chart memory limit; red: SIGKILL',
      rss,
      { max: xMax },
      { min: 0, max: rssMax, log: false, unit: '' },
      input.kills,
    ),
    panel(
      PANEL + 100,
      'p99 per request class (ms, log scale) by minute',
      p99,
      { max: xMax },
      { min: 1, max: p99Max, log: true, unit: '' },
      input.kills,
    ),
    `<text x="${LEFT + (WIDTH - LEFT - RIGHT) / 2}" y="${height - 8}" font-size="12" text-anchor="middle">minute of the run</text>`,
    '</svg>',
  ].join('\n');
}

/** Writes `soakSvg(input)` as a PNG to `pngPath` (the SVG next to it when Chromium cannot). */
export async function renderSoakChart(input: ChartInput, pngPath: string): Promise<void> {
  const svg = soakSvg(input);
  const folder = mkdtempSync(join(tmpdir(), 'soak-chart-'));
  try {
    const page = join(folder, 'chart.html');
    writeFileSync(page, `<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    const height = Number(/height="(\d+)"/.exec(svg)![1]);
    await promisify(execFile)(
      process.env.CHROMIUM ?? 'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        `--window-size=${WIDTH},${height}`,
        `--screenshot=${pngPath}`,
        `file://${page}`,
      ],
      { timeout: 120_000 },
    );
  } catch (error) {
    writeFileSync(pngPath.replace(/\.png$/, '.svg'), svg);
    process.stderr.write(`[soak] no PNG (${(error as Error).message.split('\n')[0]}); the SVG is beside it\n`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
