import type { operations } from './generated/openapi.js';

/** The JSON body of operation `Op`'s answer `Status`, from the generated types. */
export type ResponseBody<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer T } }> ? T : never;

/** The JSON body operation `Op` takes. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends {
  requestBody: { content: { 'application/json': infer T } };
}
  ? T
  : operations[Op] extends { requestBody?: { content: { 'application/json': infer T } } }
    ? T
    : never;

export type EventsPage = ResponseBody<'listEvents', 200>;
export type FeedEvent = EventsPage['events'][number];
export type Entity = ResponseBody<'getEntity', 200>;
export type CreatedVersion = ResponseBody<'createVersion', 201>;
export type Asset = ResponseBody<'getAsset', 200>;
export type AssetWithUpload = ResponseBody<'createAsset', 201>;
export type AnalysisJob = ResponseBody<'getAnalysis', 200>;
export type AnalysisType = AnalysisJob['type'];
export type AnalysisSource = RequestBody<'createAnalysis'>['source'];
export type AnalysisOptions = NonNullable<RequestBody<'createAnalysis'>['options']>;

type AnyResult = NonNullable<AnalysisJob['result']>;
/** A property only the result of that type has, to pick its member of the document's union. */
interface ResultMarkers {
  technical: 'codec';
  loudness: 'integratedLufs';
  cue_points: 'cueInMs';
  tempo: 'beatsMs';
  key: 'camelot';
  waveform: 'samples_per_pixel';
  fingerprint: 'fingerprint';
}

/** The result of an analysis of type `T` (e.g. `AnalysisResult<'loudness'>['integratedLufs']`). */
export type AnalysisResult<T extends AnalysisType> = T extends keyof ResultMarkers
  ? Extract<AnyResult, Record<ResultMarkers[T], unknown>>
  : AnyResult;

/** A job of type `T`, its result typed. */
export type AnalysisJobOf<T extends AnalysisType> = Omit<AnalysisJob, 'type' | 'result'> & { type: T; result: AnalysisResult<T> | null };

/** A SUCCEEDED job of type `T`: its result is there. */
export type SucceededAnalysis<T extends AnalysisType> = AnalysisJobOf<T> & { status: 'SUCCEEDED'; result: AnalysisResult<T> };
