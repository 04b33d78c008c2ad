/** The analysis engine: one decode, seven analyzers, fingerprint comparison (no NATS, no database). */
export { analyzeFile, type AnalysisResults, type AnalyzeFileOptions } from './analyze-file.js';
export { AnalysisError, type AnalysisErrorCode } from './errors.js';
export { compareFingerprints, DUPLICATE_SIMILARITY, fingerprintSimilarity, type FingerprintMatch } from './fingerprint/similarity.js';
export { compressFingerprint } from './fingerprint/chromaprint-codec.js';
