import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

/**
 * The Helm chart (charts/catalog-service) rendered by the real helm binary (HELM_BIN, or the one
 * scripts/lib/infra.sh extracts into ~/.cache/catalog-tools/bin), for the deploy tests.
 */
const run = promisify(execFile);
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const chart = join(repoRoot, 'charts', 'catalog-service');
export const SERVICES = ['analysis', 'asset', 'catalog', 'events', 'gateway', 'library'];

function helmBinary(): string {
  const candidates = [process.env.HELM_BIN, join(homedir(), '.cache', 'catalog-tools', 'bin', 'helm')];
  const found = candidates.find((path): path is string => Boolean(path) && existsSync(path!));
  if (!found) throw new Error('helm not found: run the tests through `npm test` (scripts/lib/infra.sh ensure_helm) or set HELM_BIN');
  return found;
}

export async function helm(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(helmBinary(), args, { maxBuffer: 16 * 1024 * 1024 });
}

/** A list the chart always renders with at least one item (its first read without a check). */
type NonEmpty<T> = [T, ...T[]];

/** A container's environment variable: a value, or a Secret's key or a field of the pod. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; fieldRef?: { fieldPath: string } };
}

interface Probe {
  httpGet: { path: string; port: string | number };
}

/** The fields of a container the deploy tests read. */
export interface Container {
  name: string;
  image: string;
  command: string[];
  args: string[];
  env: EnvVar[];
  ports: NonEmpty<{ name?: string; containerPort: number }>;
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string }[];
}

/** The fields of a pod template's spec the deploy tests read. */
export interface PodSpec {
  containers: NonEmpty<Container>;
  initContainers?: Container[];
  securityContext: { runAsNonRoot?: boolean };
  automountServiceAccountToken?: boolean;
  restartPolicy?: string;
  volumes?: unknown[];
  topologySpreadConstraints: NonEmpty<{ topologyKey: string; labelSelector: { matchLabels: Record<string, string> } }>;
}

/** A NetworkPolicy's ingress or egress rule. */
export interface PolicyRule {
  ports: { port: number | string; protocol?: string }[];
  from?: { namespaceSelector?: { matchLabels?: Record<string, string> } }[];
}

/**
 * The fields of the specs the deploy tests read, of every kind the chart renders at once (each
 * test knows the kind it reads): workloads (Deployment, StatefulSet, Job), Service,
 * PersistentVolumeClaim, Ingress, NetworkPolicy, HorizontalPodAutoscaler, PodDisruptionBudget and
 * ServiceMonitor. Their full schemas are kubernetes-models' (support/models.ts).
 */
export interface Spec {
  template: { spec: PodSpec };
  replicas?: number;
  volumeClaimTemplates: NonEmpty<{ spec: { resources: { requests: { storage: string } } } }>;
  ports: NonEmpty<{ port: number }>;
  accessModes: string[];
  rules: NonEmpty<{ http: { paths: NonEmpty<{ backend: { service: { name: string } } }> } }>;
  ingress: PolicyRule[];
  egress: PolicyRule[];
  policyTypes: string[];
  scaleTargetRef: { name: string };
  minReplicas: number;
  maxReplicas: number;
  selector: { matchExpressions: unknown[] };
  maxUnavailable: number | string;
}

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Spec;
  data?: Record<string, string>;
};

/** The chart rendered with `--set` of each of `sets` (and, first, the values files of `files`). */
export async function render(...sets: string[]): Promise<Manifest[]> {
  return renderWith([], sets);
}

export async function renderWith(files: string[], sets: string[]): Promise<Manifest[]> {
  const { stdout } = await helm('template', 'radio', chart, ...files.flatMap((f) => ['-f', f]), ...sets.flatMap((s) => ['--set', s]));
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

export const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
export const component = (m: Manifest) => m.metadata.labels?.['app.kubernetes.io/component'];
export const container = (d: Manifest) => d.spec.template.spec.containers[0];
export const envOf = (d: Manifest): Map<string, EnvVar> => new Map(container(d).env.map((e) => [e.name, e]));
export const deployment = (manifests: Manifest[], service: string) =>
  ofKind(manifests, 'Deployment').find((d) => component(d) === service)!;
