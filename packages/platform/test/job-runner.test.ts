import {
  decodeBusEvent,
  fairQueue,
  newId,
  startJobRunner,
  type JobOutcome,
  type JobRunner,
  type JobRunnerSettings,
  type NatsConnection,
  type Subjects,
} from '@catalog/platform';
import { closeEventsTestBus, eventually, openEventsTestBus, publishEvent, testBus, testBusEvent, testLogger } from '@catalog/testing';

/**
 * The platform's runner of long jobs (decision 0150): a tenant's first job runs as soon as one
 * slot comes free, however many jobs another tenant queued before it; a job whose process stops
 * (or dies) is run by another; a run that rejects is delivered again.
 */
const DURABLE = 'test-jobs';
/** Two tenants (an event's tenant is a UUID). */
const A = newId();
const B = newId();

interface TestJob {
  tenantId: string;
  name: string;
}

const jobOf = (data: Uint8Array): TestJob | null => {
  const event = decodeBusEvent(data);
  return event ? { tenantId: event.tenantId, name: (event.data as { name: string }).name } : null;
};

describe('fairQueue', () => {
  test('the tenant with the fewest running goes first, equals take turns, and a full line refuses more', () => {
    const queue = fairQueue<string>(3);
    for (const name of ['a1', 'a2', 'a3']) expect(queue.offer('a', name)).toBe(true);
    expect(queue.offer('a', 'a4')).toBe(false);
    expect(queue.take()).toEqual({ tenantId: 'a', item: 'a1' });
    queue.offer('b', 'b1');
    queue.offer('c', 'c1');
    queue.offer('c', 'c2');
    // a runs one: b and c (none running) go first, in turn.
    expect([queue.take()?.item, queue.take()?.item]).toEqual(['b1', 'c1']);
    // a, b and c run one each; b has none waiting; a had its turn first, so it goes before c.
    expect(queue.take()?.item).toBe('a2');
    queue.done('a');
    queue.done('a');
    expect(queue.take()?.item).toBe('a3');
    expect(queue.take()?.item).toBe('c2');
    expect(queue.take()).toBeUndefined();
    expect(queue.waiting).toBe(0);
  });
});

describe('startJobRunner', () => {
  let nc: NatsConnection;
  let subjects: Subjects;
  const runners: JobRunner[] = [];

  beforeEach(async () => {
    ({ nc, subjects } = await openEventsTestBus('job-runner', 'jobs'));
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await closeEventsTestBus({ nc, subjects });
  });

  const queue = async (tenantId: string, name: string): Promise<void> => {
    await publishEvent(nc, subjects, testBusEvent({ tenantId, type: 'thing.queued', data: { name } }));
  };

  function start(
    run: JobRunnerSettings<TestJob>['run'],
    more: Partial<JobRunnerSettings<TestJob>> = {},
    connection: NatsConnection = nc,
  ): JobRunner {
    const runner = startJobRunner<TestJob>({
      nc: connection,
      subjects,
      logger: testLogger('job-runner'),
      name: 'test jobs',
      durable: DURABLE,
      filterSubject: subjects.events('catalog', 'thing.queued'),
      ackWaitMs: 2_000,
      concurrency: 1,
      maxHeld: 1_000,
      retry: { minMs: 10, maxMs: 50 },
      deferMs: 100,
      jobOf,
      run,
      ...more,
    });
    runners.push(runner);
    return runner;
  }

  /** A run that records the job's start and ends after `ms`. */
  const recording =
    (started: string[], ms: number) =>
    async (job: TestJob): Promise<JobOutcome> => {
      started.push(job.name);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { ack: true };
    };

  test("another tenant's first job starts after at most one of the 20 jobs queued before it", async () => {
    for (let n = 1; n <= 20; n += 1) await queue(A, `a${n}`);
    await queue(B, 'b1');
    const started: string[] = [];
    start(recording(started, 100));
    await eventually(async () => (started.length === 21 ? true : undefined), 30_000);
    expect(started.indexOf('b1')).toBeLessThanOrEqual(1);
    expect(new Set(started).size).toBe(21);
  }, 60_000);

  test('a runner that stops hands its held jobs back; a runner whose connection dies loses them to another', async () => {
    for (let n = 1; n <= 3; n += 1) await queue(A, `a${n}`);
    const first: string[] = [];
    let release!: () => void;
    const hanging = new Promise<void>((resolve) => (release = resolve));
    const stopping = start(async (job, signal) => {
      first.push(job.name);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return { ack: false, retryInMs: 0 };
    });
    await eventually(async () => (first.length === 1 ? true : undefined));
    await stopping.stop();

    // A process that dies: its connection goes, nothing is handed back; the ack wait gives its jobs to the next.
    const dying = await testBus('dying-runner');
    const second: string[] = [];
    start(
      async (job) => {
        second.push(job.name);
        await hanging;
        return { ack: true };
      },
      {},
      dying,
    );
    await eventually(async () => (second.length === 1 ? true : undefined));
    await dying.close();

    const third: string[] = [];
    start(recording(third, 1));
    await eventually(async () => (third.length === 3 ? true : undefined), 30_000);
    expect([...third].sort()).toEqual(['a1', 'a2', 'a3']);
    release();
  }, 60_000);

  test('a run that rejects is delivered again; a message that is not a job is dropped', async () => {
    await publishEvent(nc, subjects, { type: 'thing.queued', bytes: new TextEncoder().encode('not json') });
    await queue(A, 'flaky');
    let tries = 0;
    start(async () => {
      tries += 1;
      if (tries < 3) throw new Error('the database is away');
      return { ack: true };
    });
    await eventually(async () => (tries === 3 ? true : undefined), 30_000);
  }, 60_000);
});
