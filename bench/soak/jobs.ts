import { sleep } from '@catalog/platform';
import { requestJson } from '../support/setup.js';
import type { FeedLedger } from './feed.js';
import { timed, type LatencyBook } from './latency.js';
import { standaloneFile, type Station } from './stations.js';

/**
 * The soak's jobs: an analysis a second (each station in turn, of its standalone WAV, the
 * analysis types in turn), and every `importEveryMs` an import of `importRows` new entities into
 * the next station, followed until it succeeds (its run is the `import.run` class).
 */
const ANALYSIS_TYPES = ['technical', 'loudness', 'waveform', 'cue_points', 'tempo', 'key'];
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

export interface JobSettings {
  analysesPerSecond: number;
  importRows: number;
  importEveryMs: number;
  /** When the first import starts, after the load began. */
  firstImportAfterMs: number;
}

export interface Jobs {
  imports: Array<{ jobId: string; station: number; state: string; runMs: number | null; counts: unknown }>;
  stop(): Promise<void>;
}

function importFile(station: number, run: number, rows: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < rows; i += 1) {
    const title = `Imported ${station}-${run}-${i}`;
    if (i % 3 === 0) lines.push(JSON.stringify({ type: 'song', title, artist: `Artist ${i % 997}`, dmrn: `SOAK-${station}-${run}-${i}` }));
    else if (i % 3 === 1)
      lines.push(JSON.stringify({ type: 'song', title, artist: `Artist ${i % 991}`, externalId: `legacy-${run}-${i}` }));
    else lines.push(JSON.stringify({ type: 'jingle', title }));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

export function startJobs(base: string, stations: readonly Station[], settings: JobSettings, book: LatencyBook, ledger: FeedLedger): Jobs {
  const stopping = new AbortController();
  const imports: Jobs['imports'] = [];
  const pending = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  let analyses = 0;
  const analysisTimer = setInterval(() => {
    const n = (analyses += 1);
    const station = stations[n % stations.length]!;
    const body = { type: ANALYSIS_TYPES[n % ANALYSIS_TYPES.length], source: { assetId: station.analysisAssetId } };
    track(
      timed(book, 'analysis.create', () => requestJson('POST', `${base}/api/v1/catalog/analyses`, auth(station.key), body)).then((job) => {
        if (job) ledger.expect('analysis.queued', job.jobId);
      }),
    );
  }, 1000 / settings.analysesPerSecond);

  const runImport = async (run: number): Promise<void> => {
    const station = stations[run % stations.length]!;
    const bytes = importFile(station.index, run, settings.importRows);
    const file = { name: `import-${run}.jsonl`, contentType: 'application/x-ndjson', bytes };
    const assetId = await timed(book, 'import.upload', () => standaloneFile(base, station.key, file));
    if (!assetId) return;
    const started = performance.now();
    // Asked again while the answer is a 503 or 504 (a service restarting, a loaded machine), under
    // one Idempotency-Key, so a request that was carried out after all makes no second job.
    const headers = { ...auth(station.key), 'idempotency-key': `soak-import-${process.pid}-${run}` };
    const created = await timed(book, 'import.create', async () => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await requestJson('POST', `${base}/api/v1/catalog/jobs`, headers, { type: 'import', source: { assetId } });
        } catch (error) {
          const status = (error as { status?: number }).status;
          if ((status !== 503 && status !== 504) || attempt >= 10) throw error;
          await sleep(2_000);
        }
      }
    });
    if (!created) return;
    const entry = {
      jobId: created.jobId as string,
      station: station.index,
      state: 'queued',
      runMs: null as number | null,
      counts: null as unknown,
    };
    imports.push(entry);
    // Followed through restarts: an answer that fails (the catalog killed meanwhile) is asked again.
    while (!stopping.signal.aborted) {
      const job = await requestJson('GET', `${base}/api/v1/catalog/jobs/${created.jobId}`, auth(station.key)).catch(() => null);
      if (job && (job.state === 'succeeded' || job.state === 'failed')) {
        entry.state = job.state;
        entry.counts = job.counts;
        entry.runMs = Math.round(performance.now() - started);
        book.ok('import.run', entry.runMs);
        if (job.state === 'succeeded') ledger.expectImport(entry.jobId, job.counts.created as number);
        return;
      }
      await sleep(2_000);
    }
  };

  // The platform's sleep ends early (resolves) once stopping aborts.
  const importLoop = (async () => {
    await sleep(settings.firstImportAfterMs, stopping.signal);
    for (let run = 0; !stopping.signal.aborted; run += 1) {
      track(runImport(run));
      await sleep(settings.importEveryMs, stopping.signal);
    }
  })();

  return {
    imports,
    async stop() {
      clearInterval(analysisTimer);
      stopping.abort();
      await importLoop;
      await Promise.all([...pending]);
    },
  };
}
