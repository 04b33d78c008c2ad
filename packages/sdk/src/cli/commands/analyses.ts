import { basename } from 'node:path';
import { analyseFile } from '../../analyses.js';
import type { AnalysisJob, AnalysisType } from '../../types.js';
import type { Context, Options } from '../context.js';
import { progressBar } from '../progress.js';

export const runOptions: Options = {
  wait: { type: 'boolean', default: false },
  timeout: { type: 'string' },
  'content-type': { type: 'string' },
};

function human(job: AnalysisJob): string {
  const head = `${job.jobId} ${job.type} ${job.status}`;
  return job.result ? `${head}\n${JSON.stringify(job.result, null, 2)}` : head;
}

/**
 * `analyses run TYPE FILE [--wait] [--timeout SECONDS]`: uploads FILE as a standalone asset and
 * requests the analysis; with --wait, waits for the result (exit 1 when the job FAILED).
 */
export async function runAnalysis(ctx: Context): Promise<void> {
  const [type, file] = ctx.positionals('TYPE', 'FILE') as [AnalysisType, string];
  const client = await ctx.client();
  const bar = ctx.json ? null : progressBar(ctx.io.stderr, basename(file));
  const timeout = ctx.integer('timeout');
  const contentType = ctx.string('content-type');
  const job = await analyseFile(client, type, file, {
    wait: ctx.flag('wait'),
    ...(timeout !== undefined ? { timeoutMs: timeout * 1000 } : {}),
    ...(contentType ? { contentType } : {}),
    ...(bar ? { onProgress: (p) => bar.update(p) } : {}),
    signal: ctx.io.signal,
  });
  bar?.done();
  ctx.print(job, () => human(job as AnalysisJob));
}
