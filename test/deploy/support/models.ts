import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { Manifest } from './helm.js';

/** A kind's Kubernetes object built from rendered data, which its validator then judges. */
export type Model = (data: unknown) => { validate(): void };

/** `Kind`'s constructor as a Model: the data is whatever was rendered, the validator its judge. */
const model =
  <T>(Kind: new (data?: T) => { validate(): void }): Model =>
  (data) =>
    new Kind(data as T);

/** The Kubernetes schema of each kind the chart renders (kubernetes-models: unknown fields refused). */
export const MODELS: Record<string, Model> = {
  'apps/v1/Deployment': model(Deployment),
  'apps/v1/StatefulSet': model(StatefulSet),
  'v1/Service': model(Service),
  'v1/ConfigMap': model(ConfigMap),
  'v1/PersistentVolumeClaim': model(PersistentVolumeClaim),
  'policy/v1/PodDisruptionBudget': model(PodDisruptionBudget),
  'networking.k8s.io/v1/Ingress': model(Ingress),
  'networking.k8s.io/v1/NetworkPolicy': model(NetworkPolicy),
  'batch/v1/Job': model(Job),
  'autoscaling/v2/HorizontalPodAutoscaler': model(HorizontalPodAutoscaler),
};

/** Top-level fields of the kinds above. */
const TOP_LEVEL = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'data', 'binaryData', 'immutable']);

interface Tracked {
  path: string;
  target: Record<string, unknown>;
  read: Set<string>;
  enumerated: boolean;
}

/**
 * `value` with every object in it behind a Proxy that records the fields read and whether its
 * keys were listed. kubernetes-models' validators read exactly the fields of an object's schema
 * and list the keys of a map (labels, resources), so a field of an object that was never read is
 * one its schema does not have.
 */
function track(value: unknown, path: string, all: Tracked[]): unknown {
  if (Array.isArray(value)) return value.map((item, i) => track(item, `${path}/${i}`, all));
  if (value === null || typeof value !== 'object') return value;
  const target = Object.fromEntries(Object.entries(value).map(([key, child]) => [key, track(child, `${path}/${key}`, all)]));
  const state: Tracked = { path, target, read: new Set(), enumerated: false };
  all.push(state);
  return new Proxy(target, {
    get(object, key) {
      if (typeof key === 'string') state.read.add(key);
      return Reflect.get(object, key);
    },
    has(object, key) {
      if (typeof key === 'string') state.read.add(key);
      return Reflect.has(object, key);
    },
    ownKeys(object) {
      state.enumerated = true;
      return Reflect.ownKeys(object);
    },
  });
}

/** The fields of `manifest` its Kubernetes schema does not know (validated by `build`'s validator). */
export function unknownFields(manifest: Manifest, build: Model): string[] {
  const all: Tracked[] = [];
  const built = build({});
  const fields = built as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(manifest)) fields[key] = track(value, `/${key}`, all);
  built.validate();
  const unknown = Object.keys(manifest)
    .filter((key) => !TOP_LEVEL.has(key))
    .map((key) => `/${key}`);
  for (const state of all) {
    if (state.enumerated) continue;
    for (const key of Object.keys(state.target)) if (!state.read.has(key)) unknown.push(`${state.path}/${key}`);
  }
  return unknown;
}

/**
 * Validates every rendered object against its Kubernetes schema, refusing fields the schema does
 * not have; the ServiceMonitor (a Prometheus Operator resource, not in kubernetes-models) by its
 * shape.
 */
export function validateAll(manifests: Manifest[]): void {
  for (const manifest of manifests) {
    if (manifest.apiVersion === 'monitoring.coreos.com/v1' && manifest.kind === 'ServiceMonitor') {
      expect(manifest.spec).toEqual({
        selector: { matchLabels: expect.any(Object), matchExpressions: expect.any(Array) },
        endpoints: [expect.objectContaining({ port: 'http', path: '/metrics' })],
      });
      continue;
    }
    const build = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
    if (!build) throw new Error(`no schema model for ${manifest.apiVersion} ${manifest.kind}`);
    expect(() => build(manifest).validate()).not.toThrow();
    expect({ object: `${manifest.kind} ${manifest.metadata.name}`, unknown: unknownFields(manifest, build) }).toEqual({
      object: `${manifest.kind} ${manifest.metadata.name}`,
      unknown: [],
    });
  }
}
