import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceNodeFlags } from '@catalog/platform';
import { freePort } from '@catalog/testing';
import { untilReady } from '../../scripts/dev/readiness.js';
import { repoRoot, SERVICE_NAMES, serviceEnvironment, type ServiceName } from '../../scripts/dev/services.js';
import { superviseProcesses, type Supervisor, type SupervisorEvent } from '../../scripts/dev/supervisor.js';
import { chartMemoryLimit } from '../../test/support/memory-cap.js';
import { memoryCgroup, type MemoryCgroup } from '../support/memory-cgroup.js';

/**
 * The whole system as `npm start` runs it, one process per service under its supervisor (a killed
 * process is started again, with its backoff), each as the chart runs it: its built output, its
 * chart Node flags and the telemetry register, in a memory cgroup of its chart limit. The soak's
 * heap probe is preloaded into each.
 */
export interface SoakSystem {
  gatewayUrl: string;
  supervisor: Supervisor;
  cgroups: Record<ServiceName, MemoryCgroup>;
  urls: Record<ServiceName, string>;
  exits: Array<SupervisorEvent & { type: 'exited' }>;
  /** The last lines each service wrote, for a failure message. */
  recentOutput(): string;
  stop(): Promise<void>;
}

/**
 * A service's Node flags in the soak: its chart flags, and for an experiment the flags of
 * SOAK_NODE_FLAGS_<SERVICE> after them (SOAK_NODE_FLAGS_CATALOG='--max-semi-space-size=8').
 */
export function soakNodeFlags(service: string): string[] {
  const extra = process.env[`SOAK_NODE_FLAGS_${service.toUpperCase()}`]?.split(' ').filter(Boolean) ?? [];
  return [...serviceNodeFlags(service), ...extra];
}

export async function startSoakSystem(shared: Record<string, string>, probeDir: string): Promise<SoakSystem> {
  const ports = Object.fromEntries(await Promise.all(SERVICE_NAMES.map(async (s) => [s, await freePort()] as const))) as Record<
    ServiceName,
    number
  >;
  const urls = Object.fromEntries(SERVICE_NAMES.map((s) => [s, `http://127.0.0.1:${ports[s]}`])) as Record<ServiceName, string>;
  const gatewayUrl = urls.gateway;
  const run = `soak-${process.pid}`;
  const cgroups = Object.fromEntries(SERVICE_NAMES.map((s) => [s, memoryCgroup(`${run}-${s}`, chartMemoryLimit(s))])) as Record<
    ServiceName,
    MemoryCgroup
  >;
  const settings = { shared: { ...shared, PUBLIC_BASE_URL: gatewayUrl, SOAK_PROBE_DIR: probeDir } };
  const probe = join(repoRoot, 'bench', 'soak', 'heap-probe.mjs');
  const exits: SoakSystem['exits'] = [];
  const recent = new Map<string, string[]>();
  const supervisor = superviseProcesses(
    SERVICE_NAMES.map((service) => {
      const args = [
        ...soakNodeFlags(service),
        '--import',
        probe,
        '--import',
        '@catalog/platform/telemetry-register',
        `services/${service}/dist/main.js`,
      ];
      return {
        name: service,
        ...cgroups[service].wrap(process.execPath, args),
        cwd: repoRoot,
        env: serviceEnvironment(service, ports[service], settings),
      };
    }),
    {
      onLine(name, line) {
        // A diagnosis (SOAK_PROBE_TRACE=DIR) keeps every service's output too, in DIR/<service>.out.
        if (shared.SOAK_PROBE_TRACE) appendFileSync(join(shared.SOAK_PROBE_TRACE, `${name}.out`), `${line}\n`);
        const lines = recent.get(name) ?? [];
        lines.push(line);
        recent.set(name, lines.slice(-20));
      },
      onEvent(event) {
        if (event.type === 'exited') exits.push(event);
      },
    },
  );
  // A soak that throws must not leave six services running (each in a process group of its own).
  process.on('exit', () => supervisor.names.forEach((name) => supervisor.kill(name, 'SIGKILL')));
  const system: SoakSystem = {
    gatewayUrl,
    supervisor,
    cgroups,
    urls,
    exits,
    recentOutput: () => [...recent.entries()].map(([name, lines]) => `--- ${name}\n${lines.join('\n')}`).join('\n'),
    async stop() {
      await supervisor.stop(15_000);
      for (const cgroup of Object.values(cgroups)) cgroup.remove();
    },
  };
  try {
    await Promise.all(SERVICE_NAMES.map((s) => untilReady(`${urls[s]}/readyz`, 120_000)));
  } catch (error) {
    process.stderr.write(`${system.recentOutput()}\n`);
    await system.stop();
    throw error;
  }
  return system;
}
