import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceNodeFlags } from '@catalog/platform';
import { container, deployment, render, repoRoot, SERVICES } from './support/helm.js';

/**
 * The chart's memory limits, the services' Node flags and the benchmarks' measured peaks held
 * together (decision 0161): every peak a benchmark recorded for a service (bench/results/*.json)
 * stays at least MARGIN under that service's chart limit. A peak measured under a memory cgroup
 * (the benchmarks run each service under its chart limit, as its pod is) counts only if that limit
 * is the chart's current one, the service ran with its current Node flags and the kernel killed
 * nothing; a peak measured without a limit is higher than the pod's would be, so it must fit as it
 * is. Lowering a limit or changing a service's flags therefore asks for the benchmarks to run again.
 */
const MARGIN = 0.1;
const resultsDir = join(repoRoot, 'bench', 'results');

interface Peak {
  where: string;
  service: string;
  peakMiB: number;
  /** The cgroup limit it ran under (MiB), null without one. */
  limitMiB: number | null;
  oomKills: number;
  nodeFlags: string[] | null;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every `peakRssMiB` record (service → MiB, with its `memoryLimits` beside it), the analysis workers' and the soak's per-minute RSS. */
function recordedPeaks(): Peak[] {
  const peaks: Peak[] = [];
  const visit = (value: unknown, where: string): void => {
    if (Array.isArray(value)) return value.forEach((item, i) => visit(item, `${where}[${i}]`));
    if (!isObject(value)) return;
    if (isObject(value.peakRssMiB)) {
      const limits = isObject(value.memoryLimits) ? value.memoryLimits : {};
      for (const [service, peak] of Object.entries(value.peakRssMiB)) {
        if (!SERVICES.includes(service) || typeof peak !== 'number') continue;
        const limit = isObject(limits[service]) ? (limits[service] as Json) : {};
        peaks.push({
          where: `${where}.peakRssMiB.${service}`,
          service,
          peakMiB: peak,
          limitMiB: typeof limit.limitMiB === 'number' ? limit.limitMiB : null,
          oomKills: typeof limit.oomKills === 'number' ? limit.oomKills : 0,
          nodeFlags: Array.isArray(limit.nodeFlags) ? (limit.nodeFlags as string[]) : null,
        });
      }
    }
    if (Array.isArray(value.workerPeakRssMiB)) {
      for (const peak of value.workerPeakRssMiB as number[]) {
        peaks.push({
          where: `${where}.workerPeakRssMiB`,
          service: 'analysis',
          peakMiB: peak,
          limitMiB: null,
          oomKills: 0,
          nodeFlags: null,
        });
      }
    }
    if (value.benchmark === 'soak' && isObject(value.memoryLimitsMiB) && Array.isArray(value.minutes)) {
      const minutes = value.minutes as Array<{ processes: Record<string, { rssMiB: number; oomKills: number }> }>;
      const flags = isObject(value.nodeFlags) ? value.nodeFlags : {};
      for (const [service, limitMiB] of Object.entries(value.memoryLimitsMiB)) {
        peaks.push({
          where: `${where}.minutes[].processes.${service}.rssMiB`,
          service,
          peakMiB: Math.max(...minutes.map((m) => m.processes[service]?.rssMiB ?? 0)),
          limitMiB: limitMiB as number,
          oomKills: Math.max(0, ...minutes.map((m) => m.processes[service]?.oomKills ?? 0)),
          nodeFlags: Array.isArray(flags[service]) ? (flags[service] as string[]) : null,
        });
      }
      return;
    }
    for (const [key, child] of Object.entries(value)) visit(child, `${where}.${key}`);
  };
  for (const file of readdirSync(resultsDir).filter((name) => name.endsWith('.json'))) {
    visit(JSON.parse(readFileSync(join(resultsDir, file), 'utf8')), file);
  }
  return peaks;
}

const MIB: Record<string, number> = { Ki: 1 / 1024, Mi: 1, Gi: 1024 };
function mebibytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`memory quantity ${quantity}: expected Ki, Mi or Gi`);
  return Number(match[1]) * MIB[match[2]!]!;
}

async function chartServices(): Promise<Map<string, { limitMiB: number; args: string[] }>> {
  const manifests = await render('existingSecret=catalog-secrets');
  return new Map(
    SERVICES.map((service) => {
      const c = container(deployment(manifests, service));
      return [service, { limitMiB: mebibytes(c.resources.limits.memory ?? ''), args: c.args }];
    }),
  );
}

describe('memory: chart limits, Node flags and benchmark peaks', () => {
  test('the benchmarks recorded a peak for every service, the heaviest ones under the chart limits', () => {
    const peaks = recordedPeaks();
    expect([...new Set(peaks.map((p) => p.service))].sort()).toEqual([...SERVICES].sort());
    // The catalog's heaviest loads (imports, event bursts) were measured under its limit.
    expect(peaks.filter((p) => p.service === 'catalog' && p.limitMiB !== null).length).toBeGreaterThan(0);
  });

  test('every recorded peak stays at least 10 % under its chart limit; a limited run was limited as the chart is, with the chart Node flags, and nothing was OOM-killed', async () => {
    const chart = await chartServices();
    const problems: string[] = [];
    for (const peak of recordedPeaks()) {
      const { limitMiB } = chart.get(peak.service)!;
      const budget = Math.floor(limitMiB * (1 - MARGIN));
      if (peak.peakMiB > budget)
        problems.push(`${peak.where}: ${peak.peakMiB} MiB > ${budget} MiB (chart limit ${limitMiB} MiB less 10 %)`);
      if (peak.limitMiB !== null && peak.limitMiB !== limitMiB) {
        problems.push(`${peak.where}: measured under ${peak.limitMiB} MiB, the chart now gives ${limitMiB} MiB: run the benchmark again`);
      }
      if (peak.limitMiB !== null && peak.oomKills > 0) problems.push(`${peak.where}: ${peak.oomKills} OOM kill(s) under the limit`);
      if (peak.nodeFlags !== null && JSON.stringify(peak.nodeFlags) !== JSON.stringify(serviceNodeFlags(peak.service))) {
        problems.push(
          `${peak.where}: measured with Node flags ${peak.nodeFlags.join(' ')}, the service now runs ${serviceNodeFlags(peak.service).join(' ')}`,
        );
      }
    }
    expect(problems).toEqual([]);
  });

  test("no Node flag sizes a service's heap past three quarters of its chart limit (Node otherwise sizes it from the limit)", async () => {
    for (const [service, { limitMiB, args }] of await chartServices()) {
      for (const arg of args) {
        const heap = /^--max-(?:old-space|heap)-size=(\d+)$/.exec(arg);
        if (heap) expect({ service, heapMiB: Number(heap[1]) }).toEqual({ service, heapMiB: Math.min(Number(heap[1]), limitMiB * 0.75) });
      }
    }
  });
});
