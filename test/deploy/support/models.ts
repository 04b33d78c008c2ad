import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { Manifest } from './helm.js';

/** The Kubernetes schema of each kind the chart renders (kubernetes-models: unknown fields refused). */
export const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
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

/** The fields of `manifest` its Kubernetes schema does not know (validated by `Model`'s validator). */
export function unknownFields(manifest: Manifest, Model: new (data: any) => { validate(): void }): string[] {
  const all: Tracked[] = [];
  const model = new Model({}) as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(manifest)) model[key] = track(value, `/${key}`, all);
  (model as unknown as { validate(): void }).validate();
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
    const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
    if (!Model) throw new Error(`no schema model for ${manifest.apiVersion} ${manifest.kind}`);
    expect(() => new Model(manifest).validate()).not.toThrow();
    expect({ object: `${manifest.kind} ${manifest.metadata.name}`, unknown: unknownFields(manifest, Model) }).toEqual({
      object: `${manifest.kind} ${manifest.metadata.name}`,
      unknown: [],
    });
  }
}
