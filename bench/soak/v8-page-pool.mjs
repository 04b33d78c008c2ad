// What holds a busy service's RSS after a burst (decision 0182): `node bench/soak/v8-page-pool.mjs`.
// Runs a child Node process under each flag set below. The child keeps a live set and allocates
// short-lived objects all the time (a busy service), then allocates a burst that dies at once
// (an import's working set), and reports, before the burst, at its top and 16 s after it (still
// busy): its anonymous RSS, V8's committed heap (heapTotal) and what is resident in 256 KiB
// anonymous mappings (V8's heap pages). Prints one JSON line per flag set.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { residentParts } from './heap-probe.mjs';

const MiB = 1024 * 1024;
const FLAG_SETS = {
  'catalog (chart flags)': ['--single-threaded-gc'],
  'asset (chart flags)': ['--single-threaded-gc', '--max-semi-space-size=1', '--optimize-for-size'],
};

/** Resident KiB of the process's anonymous mappings of exactly 256 KiB (V8's regular pages). */
function residentInHeapPagesMiB() {
  let size = 0;
  let total = 0;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ 0\s*$/.exec(line);
    if (mapping) size = parseInt(mapping[2], 16) - parseInt(mapping[1], 16);
    else if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) size = 0;
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && size === 256 * 1024) total += Number(rss[1]) * 1024;
  }
  return Math.round(total / MiB);
}

function figures() {
  return {
    rssAnonMiB: Math.round(residentParts().rssAnon / MiB),
    heapTotalMiB: Math.round(process.memoryUsage().heapTotal / MiB),
    heapPagesResidentMiB: residentInHeapPagesMiB(),
  };
}

async function child() {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const live = Array.from({ length: 200_000 }, (_, i) => ({ i, text: `live ${i}` }));
  const ring = new Array(50_000);
  let next = 0;
  const busy = setInterval(() => {
    for (let i = 0; i < 5_000; i += 1) ring[(next += 1) % ring.length] = { i, pair: [i, i + 1] };
  }, 2);
  await sleep(3_000);
  const before = figures();
  // The burst lives only inside this function: garbage once it returns.
  const top = (() => {
    const burst = Array.from({ length: 1_500_000 }, (_, i) => ({ key: `row ${i}`, value: { i } }));
    return { ...figures(), burstObjects: burst.length };
  })();
  await sleep(16_000);
  const after = figures();
  clearInterval(busy);
  process.stdout.write(JSON.stringify({ live: live.length, before, top, after16s: after }));
}

if (process.argv[2] === 'child') {
  await child();
} else {
  for (const [name, flags] of Object.entries(FLAG_SETS)) {
    const run = spawnSync(process.execPath, [...flags, fileURLToPath(import.meta.url), 'child'], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${name}: ${run.stderr}`);
    console.log(JSON.stringify({ node: process.version, process: name, flags, ...JSON.parse(run.stdout) }));
  }
}
