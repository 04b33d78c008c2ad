import { sleep } from '@catalog/platform';
import { eventually } from '@catalog/testing';
import { isRunning } from '../support/processes.js';
import {
  superviseProcesses,
  type ProcessSpec,
  type RestartPolicy,
  type Supervisor,
  type SupervisorEvent,
} from '../../scripts/dev/supervisor.js';

/**
 * The supervisor of `npm start` with real processes: small Node programs that run, crash, ignore
 * SIGTERM or spawn a grandchild.
 */
const program = (name: string, source: string): ProcessSpec => ({
  name,
  command: process.execPath,
  args: ['-e', source],
  cwd: process.cwd(),
  env: { PATH: process.env.PATH },
});
const runsForever = (name: string) => program(name, `console.log('up ' + process.pid); setInterval(() => {}, 1000);`);
const crashesSoon = (name: string) => program(name, `setTimeout(() => process.exit(3), 20);`);

const running: Supervisor[] = [];
function supervise(specs: ProcessSpec[], policy: RestartPolicy) {
  const events: SupervisorEvent[] = [];
  const lines: Array<[string, string]> = [];
  const supervisor = superviseProcesses(specs, {
    policy,
    onEvent: (event) => events.push(event),
    onLine: (name, line) => lines.push([name, line]),
  });
  running.push(supervisor);
  const exits = (name: string) => events.filter((e): e is SupervisorEvent & { type: 'exited' } => e.type === 'exited' && e.name === name);
  return { supervisor, events, lines, exits };
}
afterEach(async () => {
  for (const supervisor of running.splice(0)) await supervisor.stop(1_000);
});

const doubling: RestartPolicy = { initialDelayMs: 50, maxDelayMs: 200, resetAfterMs: 60_000 };

test('a process that crashes is restarted with a doubling, capped delay while the others keep running; stop ends them all', async () => {
  const { supervisor, lines, exits } = supervise([runsForever('steady'), crashesSoon('crashy')], doubling);
  await eventually(async () => (supervisor.starts('crashy') >= 5 ? true : undefined), 20_000);
  const steadyPid = supervisor.pid('steady')!;
  expect(isRunning(steadyPid)).toBe(true);
  expect(supervisor.starts('steady')).toBe(1);
  expect(lines).toContainEqual(['steady', `up ${steadyPid}`]);

  const crashes = exits('crashy').slice(0, 4);
  expect(crashes.map((e) => [e.code, e.signal, e.crashes, e.restartInMs])).toEqual([
    [3, null, 1, 50],
    [3, null, 2, 100],
    [3, null, 3, 200],
    [3, null, 4, 200],
  ]);
  expect(exits('steady')).toEqual([]);

  await supervisor.stop(5_000);
  expect(isRunning(steadyPid)).toBe(false);
  expect(exits('steady')).toEqual([expect.objectContaining({ pid: steadyPid, signal: 'SIGTERM', restartInMs: null })]);
  const startsAtStop = supervisor.starts('crashy');
  await sleep(500);
  // eslint-disable-next-line no-restricted-syntax -- a stopped supervisor's restart timer (200 ms at most): no consumer to settle, load only lengthens the wait
  expect(supervisor.starts('crashy')).toBe(startsAtStop);
  expect(supervisor.pid('crashy')).toBeUndefined();
});

test('a run that lasted resetAfterMs counts as healthy: the next crash waits the first delay again', async () => {
  const { supervisor, exits } = supervise([crashesSoon('crashy')], { initialDelayMs: 50, maxDelayMs: 1_000, resetAfterMs: 0 });
  await eventually(async () => (exits('crashy').length >= 3 ? true : undefined), 20_000);
  expect(new Set(exits('crashy').map((e) => `crash ${e.crashes} in a row, restart in ${e.restartInMs} ms`))).toEqual(
    new Set(['crash 1 in a row, restart in 50 ms']),
  );
  await supervisor.stop(1_000);
});

test('a process killed from outside (kill -9) comes back with a new pid; the others are untouched', async () => {
  const { supervisor, exits } = supervise([runsForever('victim'), runsForever('bystander')], doubling);
  const bystander = await eventually(async () => supervisor.pid('bystander'), 10_000);
  const first = await eventually(async () => supervisor.pid('victim'), 10_000);
  supervisor.kill('victim', 'SIGKILL');
  const second = await eventually(async () => {
    const pid = supervisor.pid('victim');
    return pid !== undefined && pid !== first ? pid : undefined;
  }, 10_000);
  expect(isRunning(second)).toBe(true);
  expect(isRunning(first)).toBe(false);
  expect(exits('victim')).toEqual([expect.objectContaining({ pid: first, code: null, signal: 'SIGKILL', crashes: 1, restartInMs: 50 })]);
  expect(supervisor.pid('bystander')).toBe(bystander);
  expect(supervisor.starts('bystander')).toBe(1);
});

test('stop kills what ignores SIGTERM after the grace, and the processes those spawned', async () => {
  const stubborn = program('stubborn', `process.on('SIGTERM', () => {}); console.log('ignoring SIGTERM'); setInterval(() => {}, 1000);`);
  const parent = program(
    'parent',
    `const c = require('node:child_process').spawn('sleep', ['1000'], { stdio: 'ignore' }); console.log('child ' + c.pid); setInterval(() => {}, 1000);`,
  );
  const { supervisor, lines, exits } = supervise([stubborn, parent], doubling);
  const grandchild = await eventually(async () => {
    const line = lines.find(([name, text]) => name === 'parent' && text.startsWith('child '));
    return line ? Number(line[1].slice('child '.length)) : undefined;
  }, 10_000);
  await eventually(
    async () => (lines.some(([name, text]) => name === 'stubborn' && text === 'ignoring SIGTERM') ? true : undefined),
    10_000,
  );
  const stubbornPid = supervisor.pid('stubborn')!;
  expect(isRunning(grandchild)).toBe(true);
  await supervisor.stop(300);
  expect(exits('stubborn')).toEqual([expect.objectContaining({ pid: stubbornPid, signal: 'SIGKILL', restartInMs: null })]);
  await eventually(async () => (isRunning(grandchild) ? undefined : true), 5_000);
  expect(isRunning(stubbornPid)).toBe(false);
});

test('a command that cannot be started is reported and tried again, without stopping the rest', async () => {
  const missing: ProcessSpec = { name: 'missing', command: '/nonexistent/catalog-service-binary', args: [], cwd: process.cwd(), env: {} };
  const { supervisor, events } = supervise([missing, runsForever('steady')], doubling);
  await eventually(async () => (events.filter((e) => e.type === 'spawn-failed').length >= 2 ? true : undefined), 10_000);
  expect(events.find((e) => e.type === 'spawn-failed')).toMatchObject({
    name: 'missing',
    error: expect.objectContaining({ code: 'ENOENT' }),
  });
  expect(isRunning(supervisor.pid('steady')!)).toBe(true);
});
