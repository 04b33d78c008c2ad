import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { Manifest } from './helm.js';

/** The Kubernetes schema of each kind the chart renders (kubernetes-models: unknown fields refused). */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

/**
 * Validates every rendered object against its Kubernetes schema; the ServiceMonitor (a Prometheus
 * Operator resource, not in kubernetes-models) by its shape.
 */
export function validateAll(manifests: Manifest[]): void {
  for (const manifest of manifests) {
    if (manifest.apiVersion === 'monitoring.coreos.com/v1' && manifest.kind === 'ServiceMonitor') {
      expect(manifest.spec).toEqual({
        selector: { matchLabels: expect.any(Object) },
        endpoints: [expect.objectContaining({ port: 'http', path: '/metrics' })],
      });
      continue;
    }
    const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
    if (!Model) throw new Error(`no schema model for ${manifest.apiVersion} ${manifest.kind}`);
    expect(() => new Model(manifest).validate()).not.toThrow();
  }
}
