import { LF, RowBytes, utf8Text } from './import-bytes.js';
import { notUtf8, rowTooLong, type ImportLimits, type ImportRecord } from './import-record.js';

/**
 * The lines of a byte stream (without their line feed), each at most `maxBytes`; a longer line
 * comes as null, its bytes dropped up to its line feed. A line's bytes are valid until the next
 * line is asked for.
 */
async function* linesOf(bytes: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array | null> {
  const line = new RowBytes(maxBytes);
  let overLong = false;
  for await (const chunk of bytes) {
    let start = 0;
    for (;;) {
      const at = chunk.indexOf(LF, start);
      const end = at === -1 ? chunk.length : at;
      if (!overLong && !line.append(chunk, start, end)) overLong = true;
      if (at === -1) break;
      yield overLong ? null : line.view();
      line.clear();
      overLong = false;
      start = at + 1;
    }
  }
  if (overLong) yield null;
  else if (line.length > 0) yield line.view();
}

/** The records of a JSON Lines file (one JSON object a line; row n is line n, blank lines are no rows). */
export async function* jsonLinesRecords(bytes: AsyncIterable<Uint8Array>, limits: ImportLimits): AsyncGenerator<ImportRecord> {
  let row = 0;
  for await (const bytesOfLine of linesOf(bytes, limits.maxRowBytes)) {
    row += 1;
    if (bytesOfLine === null) {
      yield rowTooLong(row, limits);
      continue;
    }
    const line = utf8Text(bytesOfLine);
    if (line === null) {
      yield notUtf8(row);
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
