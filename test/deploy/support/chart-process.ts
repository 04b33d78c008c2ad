import { container, type EnvVar, type Manifest } from './helm.js';

/** What a container of the chart runs: its command and arguments, and its environment resolved. */
export interface ChartProcess {
  command: string[];
  env: Record<string, string>;
}

/**
 * The command, arguments and environment the chart gives `workload`'s container, resolved as the
 * kubelet resolves them: each Secret key from `secrets` (a missing one is an error unless the
 * chart marks it optional), each field of the pod from `fields` (e.g. `status.podIP`), `$(NAME)`
 * expanded from the variables before it. `hosts` maps the cluster's host names (the Services) to
 * the addresses they stand for here, `mounts` the volumes' mount paths to local folders.
 */
export function chartProcess(
  workload: Manifest,
  sources: {
    secrets: Record<string, string>;
    fields: Record<string, string>;
    hosts: Record<string, string>;
    mounts?: Record<string, string>;
  },
): ChartProcess {
  const mounts = Object.entries(sources.mounts ?? {});
  const c = container(workload);
  const env: Record<string, string> = {};
  for (const entry of c.env) {
    const value = entryValue(entry, sources);
    if (value === undefined) continue;
    const expanded = value.replace(/\$\((\w+)\)/g, (whole, name: string) => env[name] ?? whole);
    const local = Object.entries(sources.hosts).reduce((text, [host, address]) => text.replaceAll(`//${host}:`, `//${address}:`), expanded);
    const mount = mounts.find(([path]) => local === path || local.startsWith(`${path}/`));
    env[entry.name] = mount ? mount[1] + local.slice(mount[0].length) : local;
  }
  return { command: [...c.command, ...c.args], env };
}

function entryValue(entry: EnvVar, sources: { secrets: Record<string, string>; fields: Record<string, string> }): string | undefined {
  if (entry.value !== undefined) return entry.value;
  const secret = entry.valueFrom?.secretKeyRef;
  if (secret) {
    const value = sources.secrets[secret.key];
    if (value === undefined && !secret.optional) throw new Error(`no local value for the Secret's key ${secret.key}`);
    return value;
  }
  const field = entry.valueFrom?.fieldRef?.fieldPath;
  if (field) {
    if (sources.fields[field] === undefined) throw new Error(`no local value for the pod's field ${field}`);
    return sources.fields[field];
  }
  throw new Error(`unknown source of ${entry.name}`);
}
