import type { Kysely } from '@catalog/platform';
import type { AnalysisDb } from '../persistence/tables.js';

/** The service's database as the edges (http, rpc, consumers, workers) hand it to domain/ without knowing its tables. */
export type AnalysisDatabase = Kysely<AnalysisDb>;
