import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The import direction of the services and packages (decision 0128): dependency-cruiser with the
 * repository's .dependency-cruiser.mjs finds no cycle (of modules or of folders) and no folder
 * importing one above it. A small tree with one breach of each rule shows the rules still bite.
 */
interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const config = join(repositoryRoot, '.dependency-cruiser.mjs');
const depcruise = join(repositoryRoot, 'node_modules/.bin/depcruise');

function cruise(cwd: string, paths: string[]): Violation[] {
  const run = spawnSync(depcruise, ['--config', config, '--output-type', 'json', ...paths], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 170_000,
  });
  if (!run.stdout.startsWith('{')) throw new Error(`depcruise failed (${run.status}): ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** One line a reader can act on: the rule, and the import (or the cycle) that breaks it. */
const described = (v: Violation): string =>
  `${v.rule.name}: ${v.from} → ${v.cycle?.length ? v.cycle.map((step) => step.name).join(' → ') : v.to}`;

test('services and packages: no cycle, no import against the direction of the layers', () => {
  expect(cruise(repositoryRoot, ['services', 'packages']).map(described).sort()).toEqual([]);
}, 180_000);

/** A service `a` (and a `b`), the catalog's features, the platform and the contracts, each file with the imports given. */
const breaches: Record<string, string[]> = {
  'services/a/src/main.ts': ["import './service.js';"],
  'services/a/src/service.ts': ["import './rpc/operations.js';", "import './consumers/events.js';", "import './workers/sweep.js';"],
  'services/a/src/index.ts': ["export * from './rpc/operations.js';", "export * from '../../b/src/index.js';"],
  'services/a/src/rpc/operations.ts': [
    "import './helpers.js';",
    "import '../domain/entities.js';",
    "import type {} from '../persistence/tables.js';",
    "import '../persistence/entities.js';",
    "import '../consumers/events.js';",
  ],
  'services/a/src/rpc/helpers.ts': [],
  'services/a/src/consumers/events.ts': ["import '../domain/entities.js';", "import '../persistence/entities.js';"],
  'services/a/src/workers/sweep.ts': ["import '../domain/entities.js';"],
  'services/a/src/domain/entities.ts': [
    "import '../persistence/entities.js';",
    "import type {} from '../integration/client.js';",
    "import '../workers/sweep.js';",
    "import './cursor.js';",
  ],
  'services/a/src/domain/cursor.ts': ["import './entities.js';", "import './missing.js';"],
  'services/a/src/persistence/entities.ts': ["import './tables.js';", "import '../config.js';"],
  'services/a/src/persistence/tables.ts': [],
  'services/a/src/persistence/events.ts': ["import '../integration/client.js';"],
  'services/a/src/integration/client.ts': ["import type {} from '../persistence/tables.js';", "import '../persistence/entities.js';"],
  'services/a/src/config.ts': [],
  'services/a/src/migrations/0001_entities.ts': ["import type {} from '../persistence/tables.js';", "import './0000_base.js';"],
  'services/a/src/migrations/0000_base.ts': [],
  'services/b/src/index.ts': [],
  // The catalog's feature folders (decision 0155): the layers inside a feature, the features in order.
  'services/catalog/src/rpc/operations.ts': ["import '../imports/rpc/jobs.js';"],
  'services/catalog/src/persistence/tables.ts': ["import '../imports/persistence/keys.js';"],
  'services/catalog/src/imports/persistence/keys.ts': ["import '../../entities/domain/entities.js';"],
  'services/catalog/src/entities/domain/entities.ts': [],
  'services/catalog/src/versions/domain/versions.ts': ["import '../../entities/domain/entities.js';"],
  'services/catalog/src/imports/domain/run.ts': ["import '../persistence/keys.js';", "import '../../entities/domain/entities.js';"],
  'services/catalog/src/imports/rpc/jobs.ts': [
    "import '../domain/run.js';",
    "import '../persistence/keys.js';",
    "import '../../versions/consumers/assets.js';",
  ],
  'services/catalog/src/versions/consumers/assets.ts': [],
  'packages/platform/src/index.ts': [
    "import '../../contracts/src/index.js';",
    "import '../../contracts/src/routes/types.js';",
    "import '../../contracts/src/routes/library.js';",
    "import '../../../services/b/src/index.js';",
    "import '../../testing/src/index.js';",
  ],
  'packages/contracts/src/index.ts': ["import './routes/types.js';"],
  'packages/contracts/src/routes/types.ts': [],
  'packages/contracts/src/routes/library.ts': ["import '../../../testing/src/index.js';"],
  'packages/testing/src/index.ts': [],
};

test('each rule finds its breach in a small tree, and the imports the layers allow pass', () => {
  const root = mkdtempSync(join(tmpdir(), 'import-direction-'));
  try {
    writeFileSync(
      join(root, 'tsconfig.base.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    );
    for (const [file, imports] of Object.entries(breaches)) {
      mkdirSync(join(root, dirname(file)), { recursive: true });
      writeFileSync(join(root, file), [...imports, 'export {};', ''].join('\n'));
    }
    expect(cruise(root, ['services', 'packages']).map(described).sort()).toEqual([
      'consumers-through-domain: services/a/src/consumers/events.ts → services/a/src/persistence/entities.ts',
      'contracts-is-a-leaf: packages/contracts/src/routes/library.ts → packages/testing/src/index.ts',
      'domain-not-up: services/a/src/domain/entities.ts → services/a/src/workers/sweep.ts',
      'feature-order: services/catalog/src/versions/domain/versions.ts → services/catalog/src/entities/domain/entities.ts',
      'handlers-apart: services/a/src/rpc/operations.ts → services/a/src/consumers/events.ts',
      'handlers-apart: services/catalog/src/imports/rpc/jobs.ts → services/catalog/src/versions/consumers/assets.ts',
      'handlers-only-from-entry-points: services/a/src/index.ts → services/a/src/rpc/operations.ts',
      'handlers-through-domain: services/a/src/rpc/operations.ts → services/a/src/persistence/entities.ts',
      'handlers-through-domain: services/catalog/src/imports/rpc/jobs.ts → services/catalog/src/imports/persistence/keys.ts',
      'integration-runs-no-query: services/a/src/integration/client.ts → services/a/src/persistence/entities.ts',
      'migrations-frozen: services/a/src/migrations/0001_entities.ts → services/a/src/persistence/tables.ts',
      'no-circular: services/a/src/domain/cursor.ts → services/a/src/domain/entities.ts → services/a/src/domain/cursor.ts',
      'no-circular: services/a/src/domain/entities.ts → services/a/src/workers/sweep.ts → services/a/src/domain/entities.ts',
      'no-folder-cycle: services/a/src/domain → services/a/src/workers → services/a/src/domain',
      'no-folder-cycle: services/a/src/integration → services/a/src/persistence → services/a/src/integration',
      'no-folder-cycle: services/a/src/persistence → services/a/src/integration → services/a/src/persistence',
      'no-folder-cycle: services/a/src/workers → services/a/src/domain → services/a/src/workers',
      'no-service-to-service: services/a/src/index.ts → services/b/src/index.ts',
      'not-to-unresolvable: services/a/src/domain/cursor.ts → ./missing.js',
      'persistence-not-up: services/a/src/persistence/events.ts → services/a/src/integration/client.ts',
      'persistence-not-up: services/catalog/src/imports/persistence/keys.ts → services/catalog/src/entities/domain/entities.ts',
      'platform-generic-contracts-only: packages/platform/src/index.ts → packages/contracts/src/routes/library.ts',
      'platform-not-to-services: packages/platform/src/index.ts → services/b/src/index.ts',
      'shared-below-features: services/catalog/src/persistence/tables.ts → services/catalog/src/imports/persistence/keys.ts',
      'testing-not-at-runtime: packages/platform/src/index.ts → packages/testing/src/index.ts',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 180_000);
