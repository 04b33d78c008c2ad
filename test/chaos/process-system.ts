import { freePort } from '@catalog/testing';
import { untilReady } from '../../scripts/dev/readiness.js';
import { serviceEnvironment, serviceProcess, type LocalServiceSettings, type ServiceName } from '../../scripts/dev/services.js';
import { superviseProcesses, type Supervisor, type SupervisorEvent } from '../../scripts/dev/supervisor.js';

/**
 * Every service as a process of its own, from source, as `npm start` runs them (its command and
 * environment functions, its supervisor, which restarts a killed process as a cluster would),
 * with two replicas of the catalog and of the events service. Logs are read only for the leases
 * (which replica publishes the outbox, which one writes the feed) and kept for failure messages.
 */
const LAYOUT: ReadonlyArray<[ServiceName, number]> = [
  ['gateway', 1],
  ['catalog', 2],
  ['asset', 1],
  ['analysis', 1],
  ['events', 2],
  ['library', 1],
];

export interface Instance {
  name: string;
  service: ServiceName;
  url: string;
}

/** A process's exit, with the last lines it wrote before it (what a failure message shows). */
export type ExitEvent = SupervisorEvent & { type: 'exited'; lastLines: string[] };

export interface ProcessSystem {
  gatewayUrl: string;
  supervisor: Supervisor;
  instances: Instance[];
  /** The instance that holds lease `lease` (an advisory-lock lease of runAsLeader), as its log said. */
  leaseHolder(lease: string): string | undefined;
  /** Every exit of a process so far, in order. */
  exits: ExitEvent[];
  /** The last lines an instance wrote and its exits, for a failure message. */
  recentOutput(): string;
  /** Runs `work`; its failure's message gets `recentOutput()` appended. */
  explained<T>(work: () => Promise<T> | T): Promise<T>;
  untilReady(name: string, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface ProcessSystemSettings {
  /** Every service's shared settings besides its port (DATABASE_URL, NATS_URL, secrets, ...). */
  shared: Record<string, string>;
  /** Per service overrides (a log level, say). */
  own?: LocalServiceSettings['own'];
}

function instanceNames(): Array<{ name: string; service: ServiceName }> {
  return LAYOUT.flatMap(([service, replicas]) =>
    Array.from({ length: replicas }, (_, i) => ({ service, name: replicas === 1 ? service : `${service}-${i + 1}` })),
  );
}

/** Follows `lease acquired` / `lease released` lines of the services' pino logs. */
function leaseTracker() {
  const holders = new Map<string, string>();
  return {
    holder: (lease: string) => holders.get(lease),
    line(name: string, line: string) {
      if (!line.includes('"lease')) return;
      try {
        const record = JSON.parse(line) as { msg?: string; lease?: string };
        if (!record.lease) return;
        if (record.msg === 'lease acquired') holders.set(record.lease, name);
        if (record.msg === 'lease released' && holders.get(record.lease) === name) holders.delete(record.lease);
      } catch {
        // not a log record
      }
    },
    exited(name: string) {
      for (const [lease, holder] of holders) if (holder === name) holders.delete(lease);
    },
  };
}

export async function startProcessSystem(settings: ProcessSystemSettings): Promise<ProcessSystem> {
  const names = instanceNames();
  const ports = await Promise.all(names.map(() => freePort()));
  const instances: Instance[] = names.map((entry, i) => ({ ...entry, url: `http://127.0.0.1:${ports[i]}` }));
  const gatewayUrl = instances.find((instance) => instance.service === 'gateway')!.url;
  const local: LocalServiceSettings = {
    shared: { ...settings.shared, PUBLIC_BASE_URL: gatewayUrl },
    ...(settings.own ? { own: settings.own } : {}),
  };
  const leases = leaseTracker();
  const exits: ExitEvent[] = [];
  const recent = new Map<string, string[]>();
  const supervisor = superviseProcesses(
    instances.map((instance, i) => serviceProcess(instance.name, instance.service, serviceEnvironment(instance.service, ports[i]!, local))),
    {
      onLine(name, line) {
        leases.line(name, line);
        const lines = recent.get(name) ?? [];
        lines.push(line);
        recent.set(name, lines.slice(-15));
      },
      onEvent(event) {
        if (event.type !== 'exited') return;
        exits.push({ ...event, lastLines: recent.get(event.name) ?? [] });
        recent.delete(event.name);
        leases.exited(event.name);
      },
    },
  );
  const urlOf = (name: string) => instances.find((instance) => instance.name === name)!.url;
  const recentOutput = () =>
    [...recent.entries()].map(([name, lines]) => `--- ${name}\n${lines.join('\n')}`).join('\n') +
    `\n--- exits\n${exits.map((e) => `${e.name} ${e.signal ?? e.code} after ${e.uptimeMs} ms\n${e.lastLines.join('\n')}`).join('\n')}`;
  return {
    gatewayUrl,
    supervisor,
    instances,
    leaseHolder: leases.holder,
    exits,
    recentOutput,
    async explained(work) {
      try {
        return await work();
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${recentOutput()}`);
      }
    },
    untilReady: (name, timeoutMs) => untilReady(`${urlOf(name)}/readyz`, timeoutMs),
    stop: () => supervisor.stop(15_000),
  };
}
