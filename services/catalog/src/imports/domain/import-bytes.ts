/**
 * The byte level of import files (decision 0147): a row's bytes held in a buffer of the row
 * limit's size, the file's leading byte order mark dropped, and a row's bytes decoded as strict
 * UTF-8. Rows are cut at ASCII bytes (line break, comma, quote), which never occur inside a
 * multi-byte UTF-8 sequence, so a row's bytes are whole characters wherever the file's chunks
 * were split: a row is decoded once it is complete, and invalid UTF-8 is that row's error.
 */

export const LF = 0x0a;

/** A row's bytes, at most `capacity` of them: the buffer is allocated once and never grows. */
export class RowBytes {
  private readonly buffer: Uint8Array;
  private used = 0;

  constructor(readonly capacity: number) {
    this.buffer = new Uint8Array(capacity);
  }

  get length(): number {
    return this.used;
  }

  /** Appends bytes `start` to `end` of `chunk`; false (nothing appended) when they do not fit. */
  append(chunk: Uint8Array, start: number, end: number): boolean {
    if (this.used + end - start > this.capacity) return false;
    this.buffer.set(chunk.subarray(start, end), this.used);
    this.used += end - start;
    return true;
  }

  /** Appends one byte; false when it does not fit. */
  push(byte: number): boolean {
    if (this.used === this.capacity) return false;
    this.buffer[this.used++] = byte;
    return true;
  }

  /** The bytes from `start` to `end` (all by default); valid until the buffer is cleared. */
  view(start = 0, end = this.used): Uint8Array {
    return this.buffer.subarray(start, end);
  }

  clear(): void {
    this.used = 0;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of complete UTF-8 bytes, or null when they are not valid UTF-8 (never repaired with U+FFFD). */
export function utf8Text(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

const BOM = [0xef, 0xbb, 0xbf];

/** The file's bytes without a leading UTF-8 byte order mark, however the first chunks are split. */
export async function* withoutByteOrderMark(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let head: number[] | null = [];
  for await (const chunk of bytes) {
    if (head === null) {
      yield chunk;
      continue;
    }
    let i = 0;
    while (i < chunk.length && head.length < BOM.length && chunk[i] === BOM[head.length]) head.push(chunk[i++]!);
    if (head.length < BOM.length && i === chunk.length) continue; // still maybe a byte order mark
    const held: number[] = head.length === BOM.length ? [] : head;
    head = null;
    if (held.length > 0) yield Uint8Array.from(held);
    if (i < chunk.length) yield chunk.subarray(i);
  }
  if (head !== null && head.length > 0) yield Uint8Array.from(head);
}
