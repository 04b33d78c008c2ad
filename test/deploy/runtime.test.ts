import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * One Node LTS line (decision 0122): the image is built on it, `engines` admits it, and the tests
 * run on it (scripts/lib/infra.sh ensure_node puts it first on PATH for `npm test` and `.ci/run`).
 */
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (...path: string[]) => readFileSync(join(repoRoot, ...path), 'utf8');
const pinned = /^INFRA_NODE_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(read('scripts', 'lib', 'infra.sh'));
const major = Number(pinned?.[1]);

test('the pinned Node is a supported LTS line (24 or 26)', () => {
  expect([24, 26]).toContain(major);
});

test('the tests run on the pinned major', () => {
  expect(process.versions.node.split('.')[0]).toBe(String(major));
});

test("every stage of the image is built on the pinned major, and package.json's engines asks for it", () => {
  const stages = [...read('deploy', 'Dockerfile').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
  expect(stages.length).toBeGreaterThanOrEqual(2);
  for (const image of stages) expect(image).toMatch(new RegExp(`^node:${major}(\\.\\d+){0,2}-bookworm-slim(@sha256:[0-9a-f]{64})?$`));
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  expect(engines).toBe(`>=${major}`);
});

test('the scripts that start services (npm start, npm test, npm run bench) put the pinned Node first before they build or run anything', () => {
  // A soak ran its hour on the machine's Node 20 because `npm run bench` did not (2026-11-29).
  for (const script of ['start.sh', 'test.sh', 'bench.sh']) {
    const text = read('scripts', script);
    const ensured = text.search(/^ensure_node$|^ensure_node\s+#/m);
    expect({ script, ensured: ensured >= 0 }).toEqual({ script, ensured: true });
    for (const later of ['ensure_node_modules', 'start_unset_servers', 'npx ']) {
      const at = text.indexOf(later);
      if (at >= 0) expect({ script, later, before: ensured < at }).toEqual({ script, later, before: true });
    }
  }
});
