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
