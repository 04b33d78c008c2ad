import { execFileSync } from 'node:child_process';
import { repositoryRoot } from './repository-root.js';

/**
 * scripts/lib/infra-tools.sh ensure_node puts the Node the tests run on first on PATH, and npm then
 * runs under it. That npm looks for its global npmrc under the fetched Node's folder, where there is
 * none, so it lost the machine's (here its cafile, for a registry behind a TLS-inspecting proxy):
 * `npm ci` in a fresh clone worked only while npm's cache held every package, and failed with
 * SELF_SIGNED_CERT_IN_CHAIN once it did not. The machine as a user's shell has it: its own PATH
 * (no fetched Node first) and no npm_config_* of the npm running this test.
 */
const machineEnv = (): NodeJS.ProcessEnv => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const path = (env.PATH ?? '').split(':').filter((dir) => !dir.includes('catalog-tools/node-'));
  return { ...env, PATH: path.join(':') };
};
const run = (script: string) =>
  execFileSync('bash', ['-c', script], { cwd: repositoryRoot, env: machineEnv(), encoding: 'utf8', timeout: 120_000 }).trim();

test("npm under the Node ensure_node puts first keeps the machine's global npm config", () => {
  const machine = run('npm config get globalconfig');
  const [node, globalconfig] = run(
    'source scripts/lib/infra.sh && ensure_node 2>/dev/null && node --version && npm config get globalconfig',
  ).split('\n');
  expect(node).toMatch(/^v24\./);
  expect(globalconfig).toBe(machine);
});
