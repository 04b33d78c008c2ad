import type { NatsConnection } from '@catalog/platform';
import { testBus, uniqueNatsPrefix } from '@catalog/testing';

/**
 * The NATS client writes once per turn of the event loop (decision 0072): messages queued by
 * many callbacks of one turn leave in one socket write, in order, and nothing queued is lost when
 * the connection closes.
 */
let receiver: NatsConnection;
const prefix = uniqueNatsPrefix('coalesce');

beforeAll(async () => {
  receiver = await testBus('coalesce-receiver');
});
afterAll(async () => {
  await receiver?.close();
});

function collect(subject: string, count: number): Promise<string[]> {
  const seen: string[] = [];
  return new Promise((resolve) => {
    receiver.subscribe(subject, {
      callback: (_err, msg) => {
        seen.push(msg.string());
        if (seen.length === count) resolve(seen);
      },
    });
  });
}

/** Counts the writes to the client's socket (an internal of the client, for this test only). */
function countWrites(nc: NatsConnection): { count: number } {
  const socket = (nc as unknown as { protocol: { transport: { socket: { write: (...args: unknown[]) => boolean } } } }).protocol.transport
    .socket;
  const counter = { count: 0 };
  const write = socket.write.bind(socket);
  socket.write = (...args: unknown[]) => {
    counter.count += 1;
    return write(...args);
  };
  return counter;
}

test('messages published by 50 callbacks of one turn leave in one socket write, all of them in order', async () => {
  const sender = await testBus('coalesce-sender');
  try {
    const subject = `${prefix}.order`;
    const arrived = collect(subject, 50);
    await receiver.flush();
    const writes = countWrites(sender);
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 50; i += 1) {
        setImmediate(() => {
          sender.publish(subject, String(i));
          if (i === 49) resolve();
        });
      }
    });
    await sender.flush();
    expect(await arrived).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    // The 50 messages, then the flush's PING: two writes (one each without coalescing: 51).
    expect(writes.count).toBeLessThanOrEqual(2);
  } finally {
    await sender.close();
  }
});

test('a message published right before the connection closes is still sent', async () => {
  const sender = await testBus('coalesce-closing');
  const subject = `${prefix}.closing`;
  const arrived = collect(subject, 1);
  await receiver.flush();
  sender.publish(subject, 'last words');
  await sender.close();
  expect(await arrived).toEqual(['last words']);
});
