import type { TrackAnalysis } from '@catalog/contracts';
import { AppError, callRpc, newId, type RpcCallSettings } from '@catalog/platform';
import { analysisFacts, TRACK_ANALYSIS_TYPES, type AnalysisJobFacts } from '../domain/analysis-facts.js';

/** What the library reads from the analysis service: the facts of a file's newest succeeded analyses. */
export interface AnalysisReader {
  facts(tenantId: string, assetId: string): Promise<TrackAnalysis>;
}

/**
 * Reads, for each analysis type a track shows, the newest SUCCEEDED job of the file
 * (`listAnalyses`, one job per call: a waveform's result is large).
 */
export function analysisReader(rpc: RpcCallSettings): AnalysisReader {
  return {
    async facts(tenantId, assetId) {
      const call = { tenantId, keyId: null, sourceSystem: 'library', requestId: newId() };
      const newest = await Promise.all(
        TRACK_ANALYSIS_TYPES.map(async (type) => {
          const query = { assetId, type, status: 'SUCCEEDED', limit: 1 };
          const reply = await callRpc(rpc, 'analysis', 'listAnalyses', { params: {}, query, body: null }, call);
          if (!reply.ok) throw new AppError(reply.error.status, reply.error.code, reply.error.message, reply.error.details);
          const [job] = (reply.body as { analyses: AnalysisJobFacts[] }).analyses;
          return [type, job] as const;
        }),
      );
      return analysisFacts(Object.fromEntries(newest.filter(([, job]) => job !== undefined)));
    },
  };
}
