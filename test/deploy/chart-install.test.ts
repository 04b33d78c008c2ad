import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODELS, unknownFields, validateAll } from './support/models.js';
import {
  chart,
  component,
  container,
  deployment,
  envOf,
  helm,
  ofKind,
  render,
  renderWith,
  repoRoot,
  SERVICES,
  type Manifest,
} from './support/helm.js';

/**
 * What a `helm install` of the whole system gets (decision 0123): lint --strict, every object of
 * the default and 'external everything' values valid, every workload hardened and sized, the
 * migrations as hook Jobs, NetworkPolicies, autoscalers, bad values refused by values.schema.json,
 * the NOTES' first admin call.
 */
const external = join(repoRoot, 'test', 'deploy', 'values', 'external.yaml');
const inChart = join(repoRoot, 'test', 'deploy', 'values', 'in-chart.yaml');
/** Each set of values and the workloads it renders: six Deployments, six migration Jobs, and the in-chart servers. */
const VALUE_SETS: Record<string, [() => Promise<Manifest[]>, number]> = {
  default: [() => render('existingSecret=catalog-secrets'), 12],
  external: [() => renderWith([external], []), 12],
  'in-chart': [() => renderWith([inChart], []), 14],
};
const workloads = (manifests: Manifest[]) => ['Deployment', 'Job', 'StatefulSet'].flatMap((kind) => ofKind(manifests, kind));

describe('helm install', () => {
  test('helm lint --strict passes for the default and the external values', async () => {
    for (const args of [
      ['--set', 'existingSecret=catalog-secrets'],
      ['-f', external],
    ]) {
      const { stdout } = await helm('lint', '--strict', chart, ...args);
      expect(stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  test.each(Object.keys(VALUE_SETS))(
    '%s values: every object valid; every workload non-root, read-only, unprivileged, with requests and limits',
    async (set) => {
      const [renderSet, count] = VALUE_SETS[set]!;
      const manifests = await renderSet();
      validateAll(manifests);
      expect(workloads(manifests).length).toBe(count);
      for (const workload of workloads(manifests)) {
        const pod = workload.spec.template.spec;
        expect({
          name: workload.metadata.name,
          nonRoot: pod.securityContext.runAsNonRoot,
          token: pod.automountServiceAccountToken,
        }).toEqual({
          name: workload.metadata.name,
          nonRoot: true,
          token: false,
        });
        for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
          expect({ name: workload.metadata.name, security: c.securityContext }).toEqual({
            name: workload.metadata.name,
            security: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          });
          for (const kind of ['requests', 'limits'] as const) expect(Object.keys(c.resources[kind]).sort()).toEqual(['cpu', 'memory']);
        }
      }
    },
  );

  test('the migrations: one pre-install,pre-upgrade hook Job per schema, as the owner; the services start without migrating', async () => {
    const manifests = await render('existingSecret=catalog-secrets');
    const jobs = ofKind(manifests, 'Job');
    expect(jobs.map((job) => container(job).args)).toEqual(
      ['gateway', 'catalog', 'asset', 'analysis', 'events', 'library'].map((schema) => ['deploy/migrate.mjs', schema]),
    );
    jobs.forEach((job, index) => {
      expect(job.metadata.annotations).toEqual({
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-weight': String(index),
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      expect(container(job).command).toEqual(['node']);
      const secrets = container(job).env.filter((e: { valueFrom?: unknown }) => e.valueFrom);
      expect(secrets).toEqual([
        { name: 'MIGRATION_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'catalog-secrets', key: 'MIGRATION_DATABASE_URL' } } },
      ]);
      expect(job.spec.template.spec.restartPolicy).toBe('Never');
    });
    for (const service of SERVICES) expect(envOf(deployment(manifests, service)).get('MIGRATE_ON_START')?.value).toBe('false');
    expect(ofKind(await render('existingSecret=s', 'migrations.enabled=false', 'migrateOnStart=true'), 'Job')).toEqual([]);
  });

  test('NetworkPolicies: only the gateway is reachable from outside, the asset and analysis listeners from the gateway; egress to DNS, NATS, Postgres, S3 only', async () => {
    const manifests = await renderWith([external], []);
    const policies = new Map(ofKind(manifests, 'NetworkPolicy').map((p) => [component(p), p.spec]));
    expect([...policies.keys()].sort()).toEqual([...SERVICES, 'migrate'].sort());
    const ingressPeers = (service: string) =>
      policies
        .get(service)!
        .ingress.filter(
          (rule) => !rule.from?.[0]?.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']?.startsWith('monitoring'),
        );
    expect(ingressPeers('gateway')).toEqual([
      {
        ports: [{ port: 'http', protocol: 'TCP' }],
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }],
      },
    ]);
    for (const service of ['asset', 'analysis']) {
      expect(ingressPeers(service)).toEqual([
        {
          ports: [{ port: 'http', protocol: 'TCP' }],
          from: [{ podSelector: { matchLabels: expect.objectContaining({ 'app.kubernetes.io/component': 'gateway' }) } }],
        },
      ]);
    }
    for (const service of ['catalog', 'events', 'library']) expect(ingressPeers(service)).toEqual([]);
    expect(policies.get('migrate')!.ingress).toEqual([]);
    const egressPorts = (service: string) =>
      policies
        .get(service)!
        .egress.flatMap((rule) => rule.ports.map((p) => p.port))
        .sort();
    expect(egressPorts('catalog')).toEqual([4222, 4318, 53, 53, 5432].sort());
    expect(egressPorts('asset')).toEqual([443, 4222, 4318, 53, 53, 5432].sort());
    expect(egressPorts('gateway')).toEqual([4222, 4318, 53, 53, 5432, 8082, 8083].sort());
    expect(egressPorts('migrate')).toEqual([53, 53, 5432]);
    for (const [, policy] of policies) expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);
  });

  test('autoscalers for the gateway, the analysis workers and the library; their Deployments leave replicas to them; spread over zones and nodes', async () => {
    const manifests = await renderWith([external], []);
    const hpas = ofKind(manifests, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => [component(h), h.spec.scaleTargetRef.name, h.spec.minReplicas, h.spec.maxReplicas])).toEqual([
      ['analysis', deployment(manifests, 'analysis').metadata.name, 2, 8],
      ['gateway', deployment(manifests, 'gateway').metadata.name, 3, 10],
      ['library', deployment(manifests, 'library').metadata.name, 1, 3],
    ]);
    for (const service of ['analysis', 'gateway', 'library']) expect(deployment(manifests, service).spec.replicas).toBeUndefined();
    expect(deployment(manifests, 'catalog').spec.replicas).toBe(2);
    for (const service of SERVICES) {
      const spread = deployment(manifests, service).spec.template.spec.topologySpreadConstraints;
      expect(spread.map((c) => c.topologyKey)).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
      expect(spread[0].labelSelector.matchLabels['app.kubernetes.io/component']).toBe(service);
    }
    const [monitor] = ofKind(manifests, 'ServiceMonitor');
    // Every Service with /metrics (all but the gateway's).
    expect(monitor!.spec.selector.matchExpressions).toEqual([
      { key: 'app.kubernetes.io/component', operator: 'In', values: SERVICES.filter((s) => s !== 'gateway') },
    ]);
    expect(ofKind(await render('existingSecret=s'), 'ServiceMonitor')).toEqual([]);
  });

  test.each([
    ['services.gateway.replicas=-1', /\/services\/gateway\/replicas': minimum/],
    ['logLevl=debug', /additional properties 'logLevl' not allowed/],
    ['securityContext.readOnlyRootFilesystem=false', /readOnlyRootFilesystem': value must be true/],
    ['podSecurityContext.runAsNonRoot=false', /runAsNonRoot': value must be true/],
    ['services.gateway.autoscaling.maxReplicas=0', /maxReplicas': minimum/],
    ['nats.url=http://nats:4222', /\/nats\/url/],
    ['image.pullPolicy=Sometimes', /pullPolicy/],
    ['services.catalog.resources.limits=null', /limits/],
  ])('the values schema refuses %s at install', async (set, message) => {
    await expect(helm('install', '--dry-run=client', 'radio', chart, '--set', 'existingSecret=s', '--set', set)).rejects.toThrow(message);
  });

  test("NOTES: how to reach the gateway and the first admin call with the Secret's admin token", async () => {
    const { stdout } = await helm('install', '--dry-run=client', 'radio', chart, '--set', 'existingSecret=catalog-secrets');
    const notes = stdout.slice(stdout.indexOf('NOTES:'));
    expect(notes).toContain("get secret catalog-secrets -o jsonpath='{.data.ADMIN_TOKEN}'");
    expect(notes).toContain('POST "$CATALOG_URL/admin/v1/organizations"');
    expect(notes).toContain('port-forward svc/radio-catalog-service-gateway 8080:80');
  });
});

test('the schema check refuses a field Kubernetes does not know, at any depth', async () => {
  const manifests = await render('existingSecret=catalog-secrets');
  const policy = structuredClone(ofKind(manifests, 'NetworkPolicy')[0]!);
  Object.assign(policy.spec.egress[0]!, { port: 53 });
  const job = structuredClone(ofKind(manifests, 'Job')[0]!);
  job.spec.template.spec.containers[0].securityContext.readOnlyRootFS = true;
  expect(unknownFields(policy, MODELS['networking.k8s.io/v1/NetworkPolicy']!)).toEqual(['/spec/egress/0/port']);
  expect(unknownFields(job, MODELS['batch/v1/Job']!)).toEqual(['/spec/template/spec/containers/0/securityContext/readOnlyRootFS']);
  for (const m of manifests) expect(unknownFields(m, MODELS[`${m.apiVersion}/${m.kind}`]!)).toEqual([]);
});

test('in-chart NATS and Postgres: a three-server JetStream cluster with the services’ users, one Postgres with the roles; the services pointed at them; migrations after the first install', async () => {
  const manifests = await renderWith([inChart], []);
  const sets = new Map(ofKind(manifests, 'StatefulSet').map((s) => [component(s), s]));
  const nats = sets.get('nats')!;
  expect(nats.spec.replicas).toBe(3);
  const natsConfig = ofKind(manifests, 'ConfigMap').find((c) => c.metadata.name === 'radio-catalog-service-nats-config')!;
  const conf = natsConfig.data!['nats.conf']!;
  expect(conf).toMatch(/jetstream \{\n\s+store_dir: \/data/);
  expect(conf.match(/nats:\/\/radio-catalog-service-nats-\d\.radio-catalog-service-nats-headless:6222/g)).toHaveLength(3);
  expect(conf).toContain('include ./authorization/authorization.conf');
  const natsEnv = container(nats).env.map((e: { name: string }) => e.name);
  for (const service of SERVICES) expect(natsEnv).toContain(`${service.toUpperCase()}_NATS_PASSWORD`);
  expect(nats.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi');
  const postgres = sets.get('postgres')!;
  const init = ofKind(manifests, 'ConfigMap').find((c) => c.metadata.name === 'radio-catalog-service-postgres-init')!;
  expect(init.data!['postgres-roles.sql']).toBe(readFileSync(join(chart, 'files', 'postgres-roles.sql'), 'utf8'));
  for (const service of SERVICES)
    expect(init.data!['10-roles.sh']).toContain(`-v ${service}_app_password="$${service.toUpperCase()}_APP_PASSWORD"`);
  expect(container(postgres).env.find((e: { name: string }) => e.name === 'POSTGRES_DB')!.value).toBe('catalog');
  for (const service of SERVICES)
    expect(envOf(deployment(manifests, service)).get('NATS_URL')?.value).toBe('nats://radio-catalog-service-nats:4222');
  for (const job of ofKind(manifests, 'Job')) expect(job.metadata.annotations!['helm.sh/hook']).toBe('post-install,pre-upgrade');
  const policies = new Map(ofKind(manifests, 'NetworkPolicy').map((p) => [component(p), p.spec]));
  expect(policies.get('nats')!.ingress.map((rule) => rule.ports[0]!.port)).toEqual([4222, 6222]);
  expect(policies.get('postgres')!.ingress).toEqual([
    { ports: [{ port: 5432, protocol: 'TCP' }], from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'radio' } } }] },
  ]);
  expect(ofKind(manifests, 'PodDisruptionBudget').find((p) => component(p) === 'nats')!.spec.maxUnavailable).toBe(1);
  await expect(renderWith([inChart], ['nats.authorizationConfigMap=false'])).rejects.toThrow(
    /inChart.nats.enabled needs nats.authorizationConfigMap/,
  );
});
