import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serviceNodeFlags } from '@catalog/platform';
import { natsPasswordVariable, renderNatsAuthorization } from '@catalog/contracts';
import { serviceVariables, type ServiceName } from '../../scripts/config-doc.js';
import { validateAll } from './support/models.js';
import { chart, container, deployment, envOf, helm, ofKind, render, repoRoot, SERVICES } from './support/helm.js';

/**
 * The Helm chart (charts/catalog-service): rendered by the real helm binary and every manifest
 * validated against the Kubernetes schemas (kubernetes-models); the settings it gives each service
 * are checked against what the services read.
 */
/** Whether `service` reads `name`: a variable of its configuration schema, or one of the process's (OpenTelemetry's, NODE_ENV). */
function reads(service: string, name: string): boolean {
  const variables = serviceVariables(service as ServiceName).map((v) => v.name);
  return variables.includes(name) || name.startsWith('OTEL_') || name === 'NODE_ENV';
}

describe('helm chart', () => {
  test('passes helm lint', async () => {
    const { stdout } = await helm('lint', chart, '--set', 'existingSecret=catalog-secrets');
    expect(stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  test('renders valid manifests: a Deployment, Service and (with replicas > 1) a PodDisruptionBudget per service', async () => {
    const manifests = await render('existingSecret=catalog-secrets');
    validateAll(manifests);
    const components = (kind: string) =>
      ofKind(manifests, kind)
        .map((m) => m.metadata.labels?.['app.kubernetes.io/component'])
        .sort();
    expect(components('Deployment')).toEqual(SERVICES);
    expect(components('Service')).toEqual(SERVICES);
    expect(components('ConfigMap')).toEqual(['nats-authorization']);
    expect(components('PodDisruptionBudget')).toEqual(['asset', 'catalog', 'events', 'gateway']);
    expect(ofKind(manifests, 'PersistentVolumeClaim')).toEqual([]);
  });

  test('each Deployment runs its service from the built output, probed on /healthz and /readyz, hardened', async () => {
    const manifests = await render('existingSecret=catalog-secrets');
    for (const service of SERVICES) {
      const d = deployment(manifests, service);
      const c = container(d);
      expect(c.args).toEqual([
        ...serviceNodeFlags(service),
        '--import',
        '@catalog/platform/telemetry-register',
        `services/${service}/dist/main.js`,
      ]);
      expect(existsSync(join(repoRoot, 'services', service, 'src', 'main.ts'))).toBe(true);
      expect(c.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(c.resources.requests).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      // The port the container listens on is the one its service reads.
      const port = c.ports[0].containerPort;
      const portVariable = service === 'gateway' ? 'PORT' : `${service.toUpperCase()}_HTTP_PORT`;
      expect(envOf(d).get(portVariable)?.value).toBe(String(port));
      expect(envOf(d).get('HTTP_HOST')?.value).toBe('0.0.0.0');
    }
  });

  test('every variable the chart sets is one its service reads; secrets only by reference', async () => {
    for (const backend of ['s3', 'fs']) {
      const manifests = await render(
        'existingSecret=catalog-secrets',
        `blob.backend=${backend}`,
        'otlpEndpoint=http://otel:4318',
        'migrateOnStart=true',
      );
      for (const service of SERVICES) {
        const env = envOf(deployment(manifests, service));
        // A variable only other values use (`$(POD_IP)`) is read by Kubernetes, not the service.
        const referenced = (name: string) => [...env.values()].some((other) => String(other.value ?? '').includes(`$(${name})`));
        for (const [name, entry] of env) {
          expect({ service, name, read: reads(service, name) || referenced(name) }).toEqual({ service, name, read: true });
          if (/SECRET|TOKEN|PASSWORD|DATABASE_URL|ACCESS_KEY/.test(name)) {
            expect(entry.value).toBeUndefined();
            expect(entry.valueFrom!.secretKeyRef).toEqual(expect.objectContaining({ name: 'catalog-secrets', key: name }));
          }
        }
      }
    }
  });

  test("NATS authorization: the chart's copy is the one generated from the route table (`npm run nats:authorization`), shipped as a ConfigMap", async () => {
    const copy = readFileSync(join(chart, 'files', 'nats-authorization.conf'), 'utf8');
    expect(copy).toBe(renderNatsAuthorization({ environment: natsPasswordVariable }));
    const [configMap] = ofKind(await render('existingSecret=catalog-secrets'), 'ConfigMap');
    expect(configMap!.data!['authorization.conf']).toBe(copy);
    // No password in it: nats-server reads each from an environment variable named like the Secret's key.
    for (const service of SERVICES) expect(copy).toContain(`password: $${service.toUpperCase()}_NATS_PASSWORD`);
    expect(ofKind(await render('existingSecret=catalog-secrets', 'nats.authorizationConfigMap=false'), 'ConfigMap')).toEqual([]);
  });

  test('each service gets only its own database role and NATS user from the Secret, the call context secret, the schema owner only when it migrates itself, and never the privileged-role flag', async () => {
    const manifests = await render('existingSecret=catalog-secrets');
    const migrating = await render('existingSecret=catalog-secrets', 'migrateOnStart=true');
    for (const service of SERVICES) {
      const env = envOf(deployment(manifests, service));
      const own = service.toUpperCase();
      expect(env.get(`${own}_DATABASE_URL`)?.valueFrom!.secretKeyRef!.key).toBe(`${own}_DATABASE_URL`);
      expect(env.get(`${own}_NATS_PASSWORD`)?.valueFrom!.secretKeyRef!.key).toBe(`${own}_NATS_PASSWORD`);
      expect(env.has('MIGRATION_DATABASE_URL')).toBe(false);
      expect(env.get('MIGRATE_ON_START')?.value).toBe('false');
      const migratingEnv = envOf(deployment(migrating, service));
      expect(migratingEnv.get('MIGRATION_DATABASE_URL')?.valueFrom!.secretKeyRef).toEqual({
        name: 'catalog-secrets',
        key: 'MIGRATION_DATABASE_URL',
      });
      expect(migratingEnv.get('MIGRATE_ON_START')?.value).toBe('true');
      expect(env.get('CALL_CONTEXT_SECRET')?.valueFrom!.secretKeyRef).toEqual({ name: 'catalog-secrets', key: 'CALL_CONTEXT_SECRET' });
      expect(env.get('DB_STATEMENT_TIMEOUT_MS')?.value).toBe('30000');
      expect(env.get('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS')?.value).toBe('60000');
      const others = [...env.keys()].filter(
        (name) => /_(DATABASE_URL|NATS_PASSWORD)$/.test(name) && name !== 'MIGRATION_DATABASE_URL' && !name.startsWith(`${own}_`),
      );
      expect({ service, others }).toEqual({ service, others: [] });
      expect(env.has('DATABASE_URL')).toBe(false);
      expect(env.has('DB_ALLOW_PRIVILEGED_ROLE')).toBe(false);
    }
  });

  test('the gateway reaches the asset listener through its Service', async () => {
    const manifests = await render('existingSecret=catalog-secrets');
    const assetService = ofKind(manifests, 'Service').find((s) => s.metadata.labels?.['app.kubernetes.io/component'] === 'asset')!;
    const url = `http://${assetService.metadata.name}:${assetService.spec.ports[0].port}`;
    expect(envOf(deployment(manifests, 'gateway')).get('ASSET_HTTP_URL')?.value).toBe(url);
    expect(envOf(deployment(manifests, 'asset')).get('ASSET_INTERNAL_URL')?.value).toBe(url);
  });

  test('the streams get three replicas with the in-chart NATS cluster, one with a NATS of yours, or as set (JETSTREAM_REPLICAS, decision 0131)', async () => {
    const replicas = async (...sets: string[]) => {
      const manifests = await render('existingSecret=catalog-secrets', ...sets);
      return [...new Set(SERVICES.map((service) => envOf(deployment(manifests, service)).get('JETSTREAM_REPLICAS')?.value))];
    };
    expect(await replicas()).toEqual(['1']);
    expect(await replicas('inChart.nats.enabled=true')).toEqual(['3']);
    expect(await replicas('inChart.nats.enabled=true', 'inChart.nats.replicas=1')).toEqual(['1']);
    expect(await replicas('nats.streamReplicas=3')).toEqual(['3']);
    expect(await replicas('inChart.nats.enabled=true', 'nats.streamReplicas=5')).toEqual(['5']);
    await expect(render('existingSecret=catalog-secrets', 'nats.streamReplicas=6')).rejects.toThrow(/streamReplicas/);
  });

  test("with the s3 backend, /app may upload to the origin of the bucket's public endpoint (decision 0145)", async () => {
    const origins = async (...sets: string[]) =>
      envOf(deployment(await render('existingSecret=catalog-secrets', ...sets), 'gateway')).get('APP_UPLOAD_ORIGINS')?.value;
    expect(await origins()).toBe('http://minio:9000');
    expect(await origins('blob.s3.publicEndpoint=https://s3.example.net/')).toBe('https://s3.example.net');
    expect(await origins('blob.s3.publicEndpoint=https://files.example.net:8443/storage')).toBe('https://files.example.net:8443');
    expect(await origins('blob.backend=fs')).toBeUndefined();
  });

  test("the gateway reaches an analysis replica's listener at the pod's own address (large results, decision 0113)", async () => {
    const manifests = await render('existingSecret=catalog-secrets');
    const env = envOf(deployment(manifests, 'analysis'));
    const port = deployment(manifests, 'analysis').spec.template.spec.containers[0].ports[0].containerPort;
    expect(env.get('POD_IP')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'status.podIP' } });
    expect(env.get('ANALYSIS_INTERNAL_URL')?.value).toBe(`http://$(POD_IP):${port}`);
    const names = [...env.keys()];
    expect(names.indexOf('POD_IP')).toBeLessThan(names.indexOf('ANALYSIS_INTERNAL_URL'));
  });

  test('the gateway counts the client address the trusted proxies saw: 1 hop behind the ingress, 0 without, or as set', async () => {
    const hops = async (...sets: string[]) =>
      envOf(deployment(await render('existingSecret=catalog-secrets', ...sets), 'gateway')).get('TRUST_PROXY_HOPS')?.value;
    expect(await hops()).toBe('0');
    expect(await hops('ingress.enabled=true')).toBe('1');
    expect(await hops('ingress.enabled=true', 'services.gateway.trustProxyHops=2')).toBe('2');
    expect(await hops('ingress.enabled=true', 'services.gateway.trustProxyHops=0')).toBe('0');
  });

  test("the IP limit, the upstream limits and every service's HTTP timeouts come from the values", async () => {
    const manifests = await render(
      'existingSecret=catalog-secrets',
      'services.gateway.ipRateLimit.perMinute=1200',
      'services.gateway.ipRateLimit.burst=100',
      'services.gateway.ipRateLimit.maxAddresses=5000',
      'services.gateway.upstream.idleTimeoutMs=120000',
      'http.bodyMinBytesPerSecond=1024',
      'http.headersTimeoutMs=10000',
    );
    validateAll(manifests);
    const gateway = envOf(deployment(manifests, 'gateway'));
    expect(
      Object.fromEntries(
        [
          'IP_RATE_LIMIT_PER_MINUTE',
          'IP_RATE_LIMIT_BURST',
          'IP_RATE_LIMIT_MAX_ADDRESSES',
          'UPSTREAM_CONNECT_TIMEOUT_MS',
          'UPSTREAM_IDLE_TIMEOUT_MS',
        ].map((n) => [n, gateway.get(n)?.value]),
      ),
    ).toEqual({
      IP_RATE_LIMIT_PER_MINUTE: '1200',
      IP_RATE_LIMIT_BURST: '100',
      IP_RATE_LIMIT_MAX_ADDRESSES: '5000',
      UPSTREAM_CONNECT_TIMEOUT_MS: '5000',
      UPSTREAM_IDLE_TIMEOUT_MS: '120000',
    });
    for (const service of SERVICES) {
      const env = envOf(deployment(manifests, service));
      expect({
        service,
        headers: env.get('HTTP_HEADERS_TIMEOUT_MS')?.value,
        rate: env.get('HTTP_BODY_MIN_BYTES_PER_SECOND')?.value,
        idle: env.get('HTTP_IDLE_TIMEOUT_MS')?.value,
      }).toEqual({
        service,
        headers: '10000',
        rate: '1024',
        idle: '60000',
      });
    }
  });

  test('fs backend: a ReadWriteMany claim kept on uninstall, mounted by the asset service, signing secret required', async () => {
    const manifests = await render('existingSecret=catalog-secrets', 'blob.backend=fs');
    validateAll(manifests);
    const [claim] = ofKind(manifests, 'PersistentVolumeClaim');
    expect(claim!.spec.accessModes).toEqual(['ReadWriteMany']);
    expect(claim!.metadata.annotations!['helm.sh/resource-policy']).toBe('keep');
    const asset = deployment(manifests, 'asset');
    expect(container(asset).volumeMounts).toContainEqual({ name: 'blobs', mountPath: '/data/blobs' });
    expect(asset.spec.template.spec.volumes).toContainEqual({ name: 'blobs', persistentVolumeClaim: { claimName: claim!.metadata.name } });
    expect(envOf(asset).get('BLOB_DIR')?.value).toBe('/data/blobs');
    expect(envOf(asset).get('BLOB_SIGNING_SECRET')?.valueFrom!.secretKeyRef!.optional).toBeUndefined();
    expect(envOf(asset).has('S3_ENDPOINT')).toBe(false);
  });

  test('ingress to the gateway when enabled', async () => {
    const manifests = await render('existingSecret=catalog-secrets', 'ingress.enabled=true', 'ingress.tlsSecretName=catalog-tls');
    validateAll(manifests);
    const [ingress] = ofKind(manifests, 'Ingress');
    expect(ingress!.spec.rules[0].http.paths[0].backend.service.name).toBe(deployment(manifests, 'gateway').metadata.name);
  });

  test('refuses to render without the Secret, or with an unknown blob backend', async () => {
    await expect(render()).rejects.toThrow(/existingSecret is required/);
    await expect(render('existingSecret=s', 'blob.backend=ftp')).rejects.toThrow(/\/blob\/backend': value must be one of 's3', 'fs'/);
  });
});
