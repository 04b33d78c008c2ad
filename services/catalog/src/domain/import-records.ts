/**
 * The records of an import file (decision 0134), read as a stream in bounded memory: JSON Lines
 * (one JSON object a line; row n is line n, blank lines are no rows) or CSV (RFC 4180: a header
 * naming the columns, then one record a row; quoted fields may hold commas, quotes as "" and line
 * breaks). A record longer than `MAX_RECORD_CHARS` is reported and skipped, not held.
 */
import { IMPORT_COLUMNS } from '@catalog/contracts';

/** Characters one record may have (an entity's fields are far shorter). */
export const MAX_RECORD_CHARS = 16_384;

export type ImportFormat = 'ndjson' | 'csv';

/** A record of the file: its row number, and its value or why it could not be read. */
export type ImportRecord = { row: number; value: Record<string, unknown> } | { row: number; problem: { code: string; message: string } };

/** The file itself cannot be read as an import (a CSV header without the needed columns): the job fails. */
export class ImportFileError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The import format of a content type (the asset's), or null. */
export function importFormatOf(contentType: string): ImportFormat | null {
  const type = contentType.trim().toLowerCase();
  return type === 'application/x-ndjson' ? 'ndjson' : type === 'text/csv' ? 'csv' : null;
}

const tooLong = (row: number): ImportRecord => ({
  row,
  problem: { code: 'row_too_long', message: `the row has more than ${MAX_RECORD_CHARS} characters` },
});

/** The file's text, decoded as UTF-8 across chunk borders (a leading byte order mark dropped). */
async function* textOf(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of bytes) {
    let text = decoder.decode(chunk, { stream: true });
    if (first && text.length > 0) {
      text = text.replace(/^\uFEFF/, '');
      first = false;
    }
    if (text.length > 0) yield text;
  }
  const rest = decoder.decode();
  if (rest.length > 0) yield rest;
}

/** The lines of a text stream (without their line break); an over-long line comes as null. */
async function* linesOf(text: AsyncIterable<string>): AsyncGenerator<string | null> {
  let buffer = '';
  let overLong = false;
  for await (const piece of text) {
    let start = 0;
    for (let at = piece.indexOf('\n'); at !== -1; at = piece.indexOf('\n', start)) {
      const line = buffer + piece.slice(start, at);
      yield overLong || line.length > MAX_RECORD_CHARS ? null : line.replace(/\r$/, '');
      buffer = '';
      overLong = false;
      start = at + 1;
    }
    buffer += piece.slice(start);
    if (buffer.length > MAX_RECORD_CHARS) {
      overLong = true;
      buffer = '';
    }
  }
  if (overLong) yield null;
  else if (buffer.length > 0) yield buffer.replace(/\r$/, '');
}

async function* ndjsonRecords(text: AsyncIterable<string>): AsyncGenerator<ImportRecord> {
  let row = 0;
  for await (const line of linesOf(text)) {
    row += 1;
    if (line === null) {
      yield tooLong(row);
      continue;
    }
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      yield { row, problem: { code: 'invalid_json', message: 'the line is not JSON' } };
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      yield { row, problem: { code: 'invalid_row', message: 'the line is not a JSON object' } };
    } else {
      yield { row, value: value as Record<string, unknown> };
    }
  }
}

/** The header's column names, checked: known names only, each once, type and title among them. */
function checkHeader(fields: readonly string[]): string[] {
  const names = fields.map((f) => f.trim());
  const known: readonly string[] = IMPORT_COLUMNS;
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0 || new Set(names).size !== names.length || !names.includes('type') || !names.includes('title')) {
    throw new ImportFileError(
      'invalid_csv_header',
      `the CSV header must name the columns type and title, and may name ${IMPORT_COLUMNS.slice(2).join(', ')}, each once` +
        (unknown.length > 0 ? ` (unknown: ${unknown.slice(0, 5).join(', ')})` : ''),
    );
  }
  return names;
}

/** A CSV record as an object of its non-empty fields, or why not. */
function csvRecord(row: number, header: readonly string[], fields: readonly string[]): ImportRecord {
  if (fields.length !== header.length) {
    return { row, problem: { code: 'invalid_row', message: `the row has ${fields.length} fields, the header ${header.length}` } };
  }
  const value: Record<string, unknown> = {};
  header.forEach((name, i) => {
    if (fields[i] !== '') value[name] = fields[i];
  });
  return { row, value };
}

/** CSV fields by record (RFC 4180), as a state machine over characters; an over-long record comes as null. */
async function* csvFields(text: AsyncIterable<string>): AsyncGenerator<string[] | null> {
  let fields: string[] = [];
  let field = '';
  let size = 0;
  let quoted = false;
  let quoteSeen = false; // a quote inside a quoted field: the end of it, or the first of ""
  const end = () => {
    fields.push(field);
    field = '';
  };
  for await (const piece of text) {
    for (const ch of piece) {
      size += 1;
      if (quoted) {
        if (ch === '"') [quoted, quoteSeen] = [false, true];
        else field += ch;
        continue;
      }
      if (ch === '"') {
        if (quoteSeen) field += '"';
        quoted = true;
        quoteSeen = false;
        continue;
      }
      quoteSeen = false;
      if (ch === ',') end();
      else if (ch === '\n') {
        end();
        const record = fields;
        fields = [];
        const blank = record.length === 1 && record[0] === '';
        if (!blank) yield size > MAX_RECORD_CHARS ? null : record;
        size = 0;
      } else if (ch !== '\r') field += ch;
      if (size > MAX_RECORD_CHARS) [field, fields] = ['', []];
    }
  }
  if (field !== '' || fields.length > 0) {
    end();
    yield size > MAX_RECORD_CHARS ? null : fields;
  }
}

async function* csvRecords(text: AsyncIterable<string>): AsyncGenerator<ImportRecord> {
  let header: string[] | null = null;
  let row = 0;
  for await (const fields of csvFields(text)) {
    if (header === null) {
      if (fields === null) throw new ImportFileError('invalid_csv_header', 'the CSV header is too long');
      header = checkHeader(fields);
      continue;
    }
    row += 1;
    yield fields === null ? tooLong(row) : csvRecord(row, header, fields);
  }
  if (header === null) throw new ImportFileError('invalid_csv_header', 'the CSV file is empty: it needs a header');
}

/** The records of an import file's bytes, in file order. */
export function importRecords(bytes: AsyncIterable<Uint8Array>, format: ImportFormat): AsyncGenerator<ImportRecord> {
  const text = textOf(bytes);
  return format === 'ndjson' ? ndjsonRecords(text) : csvRecords(text);
}
