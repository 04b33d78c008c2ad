import { operationById } from '@catalog/contracts';
import { defineOperation, type Operation } from '@catalog/platform';
import { applyCuePointMarkers, resolveAnalysisSource, type AnalysisSourceDeps } from '../domain/analysis-sources.js';

/** The internal operations the analysis service calls: its sources, and cue points as markers (decision 0088). */
export function analysisSourceOperations(deps: AnalysisSourceDeps): Operation[] {
  return [
    defineOperation(operationById('resolveAnalysisSource'), async ({ body }, call) => ({
      body: await resolveAnalysisSource(deps, call, body),
    })),
    defineOperation(operationById('applyCuePointMarkers'), async ({ body }, call) => ({
      body: await applyCuePointMarkers(deps, call, body),
    })),
  ];
}
