import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { container, deployment, envOf, render, repoRoot, SERVICES } from './support/helm.js';

/**
 * deploy/compose.yaml (decision 0123): a valid Compose file (the Compose Specification's JSON
 * schema, vendored in compose-spec/; no container engine needed) that runs each service exactly as
 * the Helm chart does (its command and environment), the database roles from the statements
 * `npm run db:setup -- --print-sql` prints.
 */
const run = promisify(execFile);
// Ajv 8, the validator the contracts package uses (the workspace root's ajv is eslint's Ajv 6).
const Ajv = createRequire(join(repoRoot, 'packages', 'contracts', 'package.json'))('ajv').default as new (options: object) => {
  compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown[] | null };
};
const composeText = readFileSync(join(repoRoot, 'deploy', 'compose.yaml'), 'utf8');
/** The fields of a Compose service the tests read (the Compose Specification's schema checks them all). */
interface ComposeService {
  user?: string;
  read_only?: boolean;
  cap_drop?: string[];
  build: { dockerfile: string };
  command: string[];
  depends_on: Record<string, { condition: string }>;
  environment: Record<string, string>;
  [field: string]: unknown;
}
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> };
// Draft 07, which Ajv knows as http://json-schema.org/draft-07/schema# (the file names it by https).
const { $schema: _draft, ...composeSchema } = JSON.parse(
  readFileSync(join(repoRoot, 'test', 'deploy', 'compose-spec', 'compose-spec.json'), 'utf8'),
) as Record<string, unknown>;
const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(composeSchema);

/** Variables whose value names this host's endpoints rather than the chart's (the names still match). */
const ENDPOINTS = new Set([
  'NATS_URL',
  'ASSET_HTTP_URL',
  'ASSET_INTERNAL_URL',
  'ANALYSIS_INTERNAL_URL',
  'PUBLIC_BASE_URL',
  'S3_ENDPOINT',
  'S3_PUBLIC_ENDPOINT',
]);
const interpolated = (value: unknown) => typeof value === 'string' && value.includes('${');

describe('deploy/compose.yaml', () => {
  test('is valid against the Compose Specification, and the schema refuses an unknown service field', () => {
    expect({ valid: validate(compose), errors: validate.errors ?? [] }).toEqual({ valid: true, errors: [] });
    const broken = structuredClone(compose);
    broken.services.gateway!.restart_policy = 'always';
    expect(validate(broken)).toBe(false);
  });

  test('runs the six services, Postgres, NATS, MinIO and the migrations, every service as a non-root user on a read-only root', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...SERVICES, 'migrate', 'minio', 'minio-bucket', 'nats', 'postgres'].sort());
    for (const name of [...SERVICES, 'migrate']) {
      const service = compose.services[name]!;
      expect({ name, user: service.user, readOnly: service.read_only, caps: service.cap_drop, build: service.build.dockerfile }).toEqual({
        name,
        user: '1000:1000',
        readOnly: true,
        caps: ['ALL'],
        build: 'deploy/Dockerfile',
      });
    }
    expect(compose.services.migrate!.command).toEqual(['node', 'deploy/migrate.mjs']);
    for (const name of SERVICES)
      expect(compose.services[name]!.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
  });

  test("each service gets the chart's command and environment: the same variables, the same values but this host's endpoints and the secrets", async () => {
    const manifests = await render('existingSecret=catalog-secrets');
    for (const service of SERVICES) {
      const rendered = deployment(manifests, service);
      const composed = compose.services[service]!;
      expect(composed.command).toEqual([...container(rendered).command, ...container(rendered).args]);
      // The pod's own fields (POD_IP) have no counterpart in a container of Compose.
      const env = new Map([...envOf(rendered)].filter(([, entry]) => !entry.valueFrom?.fieldRef));
      const own = composed.environment;
      expect({ service, names: Object.keys(own).sort() }).toEqual({ service, names: [...env.keys()].sort() });
      for (const [name, entry] of env) {
        if (entry.valueFrom) expect({ service, name, secret: interpolated(own[name]) }).toEqual({ service, name, secret: true });
        else if (!ENDPOINTS.has(name) && !interpolated(own[name]))
          expect({ service, name, value: own[name] }).toEqual({ service, name, value: entry.value });
      }
    }
  });

  test("Postgres's first start creates the roles of `npm run db:setup -- --print-sql catalog` (the chart's copy)", async () => {
    const { stdout } = await run(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', 'scripts/db-setup.ts', '--print-sql', 'catalog'],
      {
        cwd: repoRoot,
      },
    );
    expect(readFileSync(join(repoRoot, 'charts', 'catalog-service', 'files', 'postgres-roles.sql'), 'utf8')).toBe(stdout);
    const init = readFileSync(join(repoRoot, 'deploy', 'postgres-init.sh'), 'utf8');
    for (const variable of stdout.matchAll(/:'(\w+)'/g)) expect(init).toContain(`-v ${variable[1]}="$${variable[1]!.toUpperCase()}"`);
    expect(composeText).toContain('../charts/catalog-service/files/postgres-roles.sql:/catalog/postgres-roles.sql:ro');
  });
});
