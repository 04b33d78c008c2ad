import type { ValidationIssue } from '@catalog/contracts';

/** Offending fields an error names at most; a request can offend in any number of places. */
export const MAX_DETAIL_FIELDS = 20;
/** Characters of a field's path an error repeats at most (a path holds the names the client sent). */
export const MAX_DETAIL_PATH_CHARS = 200;

/**
 * The `details` of an error about offending fields: the first MAX_DETAIL_FIELDS of them, each path
 * cut to MAX_DETAIL_PATH_CHARS, and `fieldCount` (all of them) when some were left out. What the
 * client sent then bounds neither the reply (a body of 60,000 unknown keys named every one, a
 * reply larger than the bus carries) nor the work of writing it.
 */
export function fieldDetails(issues: readonly ValidationIssue[]): { fields: ValidationIssue[]; fieldCount?: number } {
  const fields = issues.slice(0, MAX_DETAIL_FIELDS).map((issue) => ({ ...issue, path: cutPath(issue.path) }));
  return issues.length > MAX_DETAIL_FIELDS ? { fields, fieldCount: issues.length } : { fields };
}

/** A path no longer than MAX_DETAIL_PATH_CHARS, ending in '…' when it was cut. */
export function cutPath(path: string): string {
  return path.length > MAX_DETAIL_PATH_CHARS ? `${path.slice(0, MAX_DETAIL_PATH_CHARS - 1)}…` : path;
}
