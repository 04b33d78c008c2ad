// Preloaded into every service of the soak (`--import`): every 10 s it writes the process's heap
// figures to $SOAK_PROBE_DIR/<service>.json (OTEL_SERVICE_NAME, else the services/<name> of the
// script it runs), which the soak reads once a minute (the services publish no heap metrics of
// their own); other benchmarks may preload it too (BENCH_NODE_ARGS). Its timer never keeps the
// process alive.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';

const dir = process.env.SOAK_PROBE_DIR;
const name = process.env.OTEL_SERVICE_NAME ?? /services\/([a-z]+)\//.exec(process.argv[1] ?? '')?.[1];
if (dir && name) {
  const file = join(dir, `${name}.json`);
  const write = () => {
    const heap = getHeapStatistics();
    const memory = process.memoryUsage();
    const sample = {
      pid: process.pid,
      at: Date.now(),
      heapUsed: memory.heapUsed,
      heapTotal: memory.heapTotal,
      heapLimit: heap.heap_size_limit,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      rss: memory.rss,
    };
    try {
      writeFileSync(file, JSON.stringify(sample));
    } catch {
      // the soak removed its directory: it is ending
    }
  };
  write();
  setInterval(write, 10_000).unref();
}
