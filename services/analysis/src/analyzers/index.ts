/** The analysis engine: one decode, seven analyzers, fingerprint comparison (no NATS, no database). */
export { analyzeFile, type AnalysisResults, type AnalyzeFileOptions } from './analyze-file.js';
export { AnalysisError, type AnalysisErrorCode } from './errors.js';
export { compareFingerprints, DUPLICATE_SIMILARITY, fingerprintSimilarity, type FingerprintMatch } from './fingerprint/similarity.js';
export { compressFingerprint } from './fingerprint/chromaprint-codec.js';
/** The key and tempo analyzers alone, for the accuracy benchmark's tuning (bench/accuracy/tune.ts). */
export { firstChoice, KeyAnalyzer, keyOfChroma, KEY_SETTINGS, type KeyChroma, type KeySettings } from './key/key-analyzer.js';
export { RERANK_FEATURES, reRankCandidates, reRankFeatures, type ReRank, type ReRankFeature } from './key/key-rerank.js';
export type { KeyProfiles } from './key/key-profiles.js';
export { INTERVALS, keyProfilesOf, keyWeightsFileOf, type KeyWeightsFile } from './key/key-weights.js';
export { OCTAVE_FEATURES, octaveWeightsOf, octaveWeightsFileOf, type OctaveWeightsFile } from './tempo/octave-weights.js';
export { TempoAnalyzer } from './tempo/tempo-analyzer.js';
export { chooseOctave } from './tempo/tempo-estimate.js';
