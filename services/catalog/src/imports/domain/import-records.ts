/**
 * The records of an import file (decisions 0134, 0147), read as a stream in bounded memory: JSON
 * Lines (one JSON object a line; row n is line n, blank lines are no rows) or CSV (RFC 4180: a
 * header naming the columns, then one record a row). A row longer than `maxRowBytes` is reported
 * and skipped up to the next line break, never held; a row that is not UTF-8 is reported.
 */
import { withoutByteOrderMark } from './import-bytes.js';
import { csvRecords } from './import-csv.js';
import { jsonLinesRecords } from './import-json-lines.js';
import type { ImportLimits, ImportRecord } from './import-record.js';

export { ImportFileError, type ImportLimits, type ImportRecord } from './import-record.js';

export type ImportFormat = 'ndjson' | 'csv';

/** The import format of a content type (the asset's), or null. */
export function importFormatOf(contentType: string): ImportFormat | null {
  const type = contentType.trim().toLowerCase();
  return type === 'application/x-ndjson' ? 'ndjson' : type === 'text/csv' ? 'csv' : null;
}

/** The records of an import file's bytes, in file order (a leading byte order mark dropped). */
export function importRecords(bytes: AsyncIterable<Uint8Array>, format: ImportFormat, limits: ImportLimits): AsyncGenerator<ImportRecord> {
  const content = withoutByteOrderMark(bytes);
  return format === 'ndjson' ? jsonLinesRecords(content, limits) : csvRecords(content, limits);
}
