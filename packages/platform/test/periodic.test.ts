import { sleep, startPeriodicTask } from '@catalog/platform';
import { capturingLogger } from '@catalog/testing';

describe('startPeriodicTask', () => {
  test('runs every interval without overlapping, goes on after a failed run (logged), and stop waits for the run in progress', async () => {
    const { logger, lines } = capturingLogger('periodic-test');
    let runs = 0;
    let active = 0;
    let overlapped = false;
    let finished = 0;
    const stop = startPeriodicTask({
      name: 'test sweep',
      intervalMs: 5,
      logger,
      run: async () => {
        runs += 1;
        active += 1;
        if (active > 1) overlapped = true;
        await sleep(20);
        active -= 1;
        finished += 1;
        if (runs === 1) throw new Error('first run fails');
      },
    });
    expect(runs).toBe(0); // the first run comes one interval after the start
    while (runs < 3) await sleep(5);
    await stop();
    expect(overlapped).toBe(false);
    expect(finished).toBe(runs); // stop waited for the run that was in progress
    const failures = lines().filter((line) => line.msg === 'test sweep failed');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ level: 50, task: 'test sweep', err: { message: 'first run fails' } });

    const after = runs;
    await sleep(40);
    // eslint-disable-next-line no-restricted-syntax -- a stopped timer: no consumer to settle, and load only lengthens the wait
    expect(runs).toBe(after); // no run after stop
  });
});
