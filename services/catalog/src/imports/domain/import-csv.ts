import { IMPORT_COLUMNS } from '@catalog/contracts';
import { LF, RowBytes, utf8Text } from './import-bytes.js';
import { ImportFileError, notUtf8, rowTooLong, type ImportLimits, type ImportRecord } from './import-record.js';

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;

/** A CSV record as read: its fields, or why it cannot be read. */
type CsvRecord = string[] | 'too_long' | 'not_utf8' | 'unclosed_quote';

/** The record being read: its unquoted bytes (a buffer of the row limit), where its fields end, and the quoting state. */
class CsvRecordReader {
  private readonly content: RowBytes;
  private readonly ends: number[] = [];
  private size = 0;
  private quoteSeen = false; // a quote closed a quoted field: the end of it, or the first of ""
  quoted = false;
  overLong = false;

  constructor(private readonly maxBytes: number) {
    this.content = new RowBytes(maxBytes);
  }

  /** Takes a byte of the record (not the line feed that ends it); false, the byte not taken, once the record passes the limit. */
  take(byte: number): boolean {
    if (++this.size > this.maxBytes) {
      this.overLong = true;
      return false;
    }
    if (this.quoted) {
      if (byte === QUOTE) [this.quoted, this.quoteSeen] = [false, true];
      else this.content.push(byte);
      return true;
    }
    if (byte === QUOTE) {
      if (this.quoteSeen) this.content.push(QUOTE);
      [this.quoted, this.quoteSeen] = [true, false];
      return true;
    }
    this.quoteSeen = false;
    if (byte === COMMA) this.ends.push(this.content.length);
    else if (byte !== CR) this.content.push(byte);
    return true;
  }

  /** The record's fields, decoded, and the reader ready for the next; null for a blank record (one empty field). */
  end(): CsvRecord | null {
    this.ends.push(this.content.length);
    const record = this.ends.length === 1 && this.ends[0] === 0 ? null : this.decoded();
    this.reset();
    return record;
  }

  /** The fields as text: one decoding of the whole record, cut by byte offsets where all of it is ASCII (one byte a character). */
  private decoded(): CsvRecord {
    const whole = utf8Text(this.content.view());
    if (whole === null) return 'not_utf8'; // fields end at ASCII bytes: the record is UTF-8 exactly when each field is
    const ascii = whole.length === this.content.length;
    const fields: string[] = [];
    let start = 0;
    for (const end of this.ends) {
      fields.push(ascii ? whole.slice(start, end) : utf8Text(this.content.view(start, end))!);
      start = end;
    }
    return fields;
  }

  /** At the end of the file: the record it ends, if any. */
  last(): CsvRecord | null {
    if (this.overLong) return 'too_long';
    if (this.quoted) return 'unclosed_quote';
    return this.size > 0 ? this.end() : null;
  }

  reset(): void {
    this.content.clear();
    this.ends.length = 0;
    this.size = 0;
    [this.quoted, this.quoteSeen, this.overLong] = [false, false, false];
  }
}

/**
 * The records of a CSV byte stream (RFC 4180: quoted fields may hold commas, quotes as "" and line
 * breaks; a record of one empty field is none), in bounded memory (decision 0147): a record whose
 * bytes pass `maxBytes`, quoted or not, is 'too_long': it ends there, and its bytes are dropped up
 * to the next line feed, quoted or not, where the next record begins. A quote still open at the
 * end of the file is 'unclosed_quote'. A record's fields are decoded once it is whole.
 */
async function* csvRecordsOf(bytes: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<CsvRecord> {
  const record = new CsvRecordReader(maxBytes);
  for await (const chunk of bytes) {
    let i = 0;
    while (i < chunk.length) {
      if (record.overLong) {
        const at = chunk.indexOf(LF, i);
        if (at === -1) break;
        i = at + 1;
        record.reset();
        yield 'too_long';
      } else if (chunk[i] === LF && !record.quoted) {
        i += 1;
        const fields = record.end();
        if (fields !== null) yield fields;
      } else if (record.take(chunk[i]!)) i += 1; // else the byte is looked at again: it may be the line feed where reading resumes
    }
  }
  const last = record.last();
  if (last !== null) yield last;
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

const HEADER_PROBLEMS: Record<Exclude<CsvRecord, string[]>, string> = {
  too_long: 'the CSV header is too long',
  not_utf8: 'the CSV header is not valid UTF-8',
  unclosed_quote: 'the CSV header has a quote that is never closed',
};

/** A record after the header as an object of its non-empty fields, or why not. */
function csvRecord(row: number, header: readonly string[], record: CsvRecord, limits: ImportLimits): ImportRecord {
  if (record === 'too_long') return rowTooLong(row, limits);
  if (record === 'not_utf8') return notUtf8(row);
  if (record === 'unclosed_quote') return { row, problem: { code: 'invalid_row', message: 'a quoted field of the row is never closed' } };
  if (record.length !== header.length) {
    return { row, problem: { code: 'invalid_row', message: `the row has ${record.length} fields, the header ${header.length}` } };
  }
  const value: Record<string, unknown> = {};
  header.forEach((name, i) => {
    if (record[i] !== '') value[name] = record[i];
  });
  return { row, value };
}

/** The records of a CSV file: a header naming the columns, then one record a row (row n is the n-th record after the header). */
export async function* csvRecords(bytes: AsyncIterable<Uint8Array>, limits: ImportLimits): AsyncGenerator<ImportRecord> {
  let header: string[] | null = null;
  let row = 0;
  for await (const record of csvRecordsOf(bytes, limits.maxRowBytes)) {
    if (header === null) {
      if (!Array.isArray(record)) throw new ImportFileError('invalid_csv_header', HEADER_PROBLEMS[record]);
      header = checkHeader(record);
      continue;
    }
    row += 1;
    yield csvRecord(row, header, record, limits);
  }
  if (header === null) throw new ImportFileError('invalid_csv_header', 'the CSV file is empty: it needs a header');
}
