import { ANALYSIS_TYPES, AnalysisResultSchemas, schemaValidator, type AnalysisType, type ValidationIssue } from '@catalog/contracts';

/** The compiled checker of each type's result schema (packages/contracts/src/schemas/analyses.ts). */
const CHECKERS = new Map<AnalysisType, (value: unknown) => ValidationIssue[]>(
  ANALYSIS_TYPES.map((type) => [type, schemaValidator(AnalysisResultSchemas[type])]),
);

/**
 * Why an analyzer's result may not be stored (it does not match its type's result schema: a field
 * missing, of another type, out of its bounds, NaN or infinite), naming the first bad field; null
 * when it matches.
 */
export function resultProblem(type: AnalysisType, result: unknown): string | null {
  const [first] = CHECKERS.get(type)!(result);
  if (!first) return null;
  const field = first.path === '/' ? 'the result' : first.path;
  return `the ${type} analyzer gave a result that does not match its schema: ${field} ${first.message}`;
}
