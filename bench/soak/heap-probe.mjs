// Preloaded into every service of the soak (`--import`): every 10 s it writes the process's heap
// figures to $SOAK_PROBE_DIR/<service>.json (OTEL_SERVICE_NAME, else the services/<name> of the
// script it runs), which the soak reads once a minute (the services publish no heap metrics of
// their own); other benchmarks may preload it too (BENCH_NODE_ARGS). Its timer never keeps the
// process alive.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const dir = process.env.SOAK_PROBE_DIR;
// SOAK_PROBE_TRACE=DIR (a diagnosis): a sample every second, each also appended to DIR/<service>.log.
const trace = process.env.SOAK_PROBE_TRACE;
const name = process.env.OTEL_SERVICE_NAME ?? /services\/([a-z]+)\//.exec(process.argv[1] ?? '')?.[1];

/** RssAnon and RssFile of /proc/self/status, in bytes (empty where there is none). */
export function residentParts() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rssAnon: kib('RssAnon'), rssFile: kib('RssFile') };
  } catch {
    return {};
  }
}

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
      // Where the RSS is: the process's anonymous and file-backed pages (/proc/self/status), and
      // V8's spaces by their committed size (code, old, new, large objects).
      ...residentParts(),
      spaces: Object.fromEntries(getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size])),
    };
    try {
      writeFileSync(file, JSON.stringify(sample));
      if (trace) appendFileSync(join(trace, `${name}.log`), `${JSON.stringify(sample)}\n`);
    } catch {
      // the soak removed its directory: it is ending
    }
  };
  write();
  setInterval(write, trace ? 1_000 : 10_000).unref();
}
