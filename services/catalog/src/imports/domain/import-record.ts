/** A record of an import file as its readers give it (decision 0134), and the row errors they find (decision 0147). */

/** A record of the file: its row number, and its value or why it could not be read. */
export type ImportRecord = { row: number; value: Record<string, unknown> } | { row: number; problem: { code: string; message: string } };

/** What bounds the readers of import files. */
export interface ImportLimits {
  /** Bytes one row (a JSON line, a CSV record, the CSV header) may have. */
  maxRowBytes: number;
}

/** The file itself cannot be read as an import (a CSV header without the needed columns): the job fails. */
export class ImportFileError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A row over the limit: reported, its bytes dropped up to the next line break, where reading resumes. */
export function rowTooLong(row: number, limits: ImportLimits): ImportRecord {
  const message = `the row has more than ${limits.maxRowBytes} bytes: skipped up to the next line break`;
  return { row, problem: { code: 'row_too_long', message } };
}

/** A row whose bytes are not UTF-8: refused as the JSON API refuses such a body, never repaired. */
export function notUtf8(row: number): ImportRecord {
  return { row, problem: { code: 'invalid_utf8', message: 'the row is not valid UTF-8' } };
}
