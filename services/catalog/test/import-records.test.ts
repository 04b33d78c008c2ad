import { importRecords, type ImportFormat, type ImportRecord } from '../src/imports/domain/import-records.js';

/**
 * The readers of import files (decision 0147) fed the same bytes in chunks of every size from
 * one byte up: a multi-byte character or a byte order mark split across chunks reads as whole,
 * and the rows, their errors and their numbers do not depend on where the chunks end.
 */

const LIMITS = { maxRowBytes: 1_024 };

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function read(bytes: Buffer, format: ImportFormat, chunkSize: number): Promise<ImportRecord[]> {
  const records: ImportRecord[] = [];
  for await (const record of importRecords(chunked(bytes, chunkSize), format, LIMITS)) records.push(record);
  return records;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');
const NOT_UTF8 = { code: 'invalid_utf8', message: 'the row is not valid UTF-8' };
const TOO_LONG = { code: 'row_too_long', message: 'the row has more than 1024 bytes: skipped up to the next line break' };

const csv = Buffer.concat([
  utf8('\uFEFFtype,title,artist\r\n'),
  utf8('song,"Café 🎵, ""live""",Zoé\r\n'),
  Buffer.concat([utf8('song,Bad '), Buffer.from([0xe2, 0x82]), utf8(',x\r\n')]),
  utf8(`song,"${'é'.repeat(600)}\nnever closed,x\r\n`),
  utf8('song,"Two\nlines",\r\n'),
]);

test.each([1, 2, 3, 7, 64, csv.length])('CSV in chunks of %i bytes', async (size) => {
  expect(await read(csv, 'csv', size)).toEqual([
    { row: 1, value: { type: 'song', title: 'Café 🎵, "live"', artist: 'Zoé' } },
    { row: 2, problem: NOT_UTF8 },
    // Over the limit inside its quotes: the row ends at the limit, reading resumes after the next line feed.
    { row: 3, problem: TOO_LONG },
    { row: 4, problem: { code: 'invalid_row', message: 'the row has 2 fields, the header 3' } },
    { row: 5, value: { type: 'song', title: 'Two\nlines' } },
  ]);
});

const jsonLines = Buffer.concat([
  utf8('\uFEFF{"type":"song","title":"Ünïcödé ☕"}\n'),
  Buffer.concat([utf8('{"type":"song","title":"'), Buffer.from([0xc3]), utf8('"}\n')]),
  utf8(`{"type":"song","title":"${'x'.repeat(2_000)}"}\n`),
  utf8('\n'),
  utf8('{"type":"song","title":"Last"}'),
]);

test.each([1, 2, 5, 64, jsonLines.length])('JSON Lines in chunks of %i bytes', async (size) => {
  expect(await read(jsonLines, 'ndjson', size)).toEqual([
    { row: 1, value: { type: 'song', title: 'Ünïcödé ☕' } },
    { row: 2, problem: NOT_UTF8 },
    { row: 3, problem: TOO_LONG },
    { row: 5, value: { type: 'song', title: 'Last' } },
  ]);
});

test.each([
  ['too long', `type,title,${'x'.repeat(2_000)}\nsong,A\n`, 'the CSV header is too long'],
  ['not UTF-8', Buffer.concat([utf8('type,title,'), Buffer.from([0xff]), utf8('\nsong,A\n')]), 'the CSV header is not valid UTF-8'],
  ['open at the end', 'type,"title', 'the CSV header has a quote that is never closed'],
  ['missing', '', 'the CSV file is empty: it needs a header'],
])('a CSV header %s fails the file', async (_case, content, message) => {
  const bytes = typeof content === 'string' ? utf8(content) : content;
  await expect(read(bytes, 'csv', 16)).rejects.toMatchObject({ code: 'invalid_csv_header', message });
});
