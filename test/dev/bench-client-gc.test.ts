import { clientCollections, type Window } from '../../bench/support/client-gc.js';

describe("a benchmark client's own collections (decision 0178)", () => {
  it('counts the timed windows one of its collections fell into, and not those it ran between', async () => {
    const client = clientCollections();
    try {
      const windows: Window[] = [];
      const timed = (work: () => void): void => {
        const start = performance.now();
        work();
        windows.push([start, performance.now()]);
      };
      timed(() => undefined);
      client.collectYoung(); // between two windows
      timed(() => client.collectYoung()); // inside one
      timed(() => undefined);
      expect(await client.overlapping(windows)).toBe(1);
    } finally {
      client.stop();
    }
  });
});
