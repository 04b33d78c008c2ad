import { callRpc, newId, replyValue, type CallContext, type RpcCallSettings } from '@catalog/platform';

/**
 * A succeeded analysis job as `listAnalyses` of the analysis service answers it (the agreed
 * interface): the summary of its result, never the result (decision 0113). The facts a track
 * shows are all in the summaries (tempo: bpm, confidence, first beat and downbeat; the other
 * types whole; the waveform: only that it exists).
 */
export interface AnalysisJobFacts {
  jobId: string;
  type: string;
  finishedAt: string | null;
  summary: Record<string, unknown> | null;
}

/** The analysis types a track shows, by the job type that computes them. */
export const TRACK_ANALYSIS_TYPES = ['tempo', 'key', 'loudness', 'cue_points', 'technical', 'waveform'] as const;

type TrackAnalysisType = (typeof TRACK_ANALYSIS_TYPES)[number];

/** The newest succeeded job of each analysis type a track shows (a type without one is absent). */
export type NewestAnalyses = Partial<Record<TrackAnalysisType, AnalysisJobFacts>>;

/** What the library reads from the analysis service: a file's newest succeeded analyses. */
export interface AnalysisReader {
  newest(tenantId: string, assetId: string): Promise<NewestAnalyses>;
}

type JobPage = { analyses: AnalysisJobFacts[]; hasMore: boolean };

/** Jobs of the first page of a file's succeeded analyses (most files have none or a few). */
const FIRST_PAGE = 20;

async function listSucceeded(rpc: RpcCallSettings, call: CallContext, query: Record<string, unknown>): Promise<JobPage> {
  const reply = await callRpc(rpc, 'analysis', 'listAnalyses', { params: {}, query: { ...query, status: 'SUCCEEDED' }, body: null }, call);
  return replyValue<JobPage>(reply);
}

/**
 * Reads, for each analysis type a track shows, the newest SUCCEEDED job of the file
 * (`listAnalyses`, newest first, each job with the small summary of its result, never the result:
 * decision 0113): one call for the file's first page, which usually holds every type (or none: one
 * call for a file never analysed); a type the page lacks while there are more is asked for on its own.
 */
export function analysisReader(rpc: RpcCallSettings): AnalysisReader {
  return {
    async newest(tenantId, assetId) {
      const call = { tenantId, keyId: null, sourceSystem: 'library', requestId: newId() };
      const first = await listSucceeded(rpc, call, { assetId, limit: FIRST_PAGE });
      const newest: NewestAnalyses = {};
      for (const job of first.analyses) {
        const type = job.type as TrackAnalysisType;
        if (TRACK_ANALYSIS_TYPES.includes(type) && newest[type] === undefined) newest[type] = job;
      }
      if (first.hasMore) {
        const missing = TRACK_ANALYSIS_TYPES.filter((type) => newest[type] === undefined);
        const found = await Promise.all(
          missing.map(async (type) => [type, (await listSucceeded(rpc, call, { assetId, type, limit: 1 })).analyses[0]] as const),
        );
        for (const [type, job] of found) if (job !== undefined) newest[type] = job;
      }
      return newest;
    },
  };
}
