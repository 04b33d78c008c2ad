import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { releaseChunk } from '@catalog/platform';

/**
 * A writable stream into an open file that writes what it has buffered with one `writev`, gives
 * each chunk's memory back as soon as it is in the file (decision 0042: the chunks are the socket
 * body copies of an upload, nobody else holds them), reports the bytes written, and fsyncs the
 * file when it ends (the data is durable before the stream reports it has finished). The file is
 * not closed: its owner closes it.
 */
export class FileSink extends Writable {
  constructor(
    private readonly file: FileHandle,
    private readonly onWritten: (bytes: number) => void,
  ) {
    super({ highWaterMark: 1024 * 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writeAll([chunk]).then(() => callback(), callback);
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (error?: Error | null) => void): void {
    this.writeAll(chunks.map(({ chunk }) => chunk)).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.file.sync().then(() => callback(), callback);
  }

  private async writeAll(chunks: Buffer[]): Promise<void> {
    let total = 0;
    for (const chunk of chunks) total += chunk.length;
    let left = chunks;
    for (let written = 0; written < total;) {
      const { bytesWritten } = await this.file.writev(left);
      if (bytesWritten <= 0) throw new Error('the file accepted no more bytes');
      written += bytesWritten;
      left = remainingAfter(left, bytesWritten);
    }
    for (const chunk of chunks) releaseChunk(chunk);
    this.onWritten(total);
  }
}

/** The part of `chunks` after its first `bytes` bytes (views, no copies). */
function remainingAfter(chunks: Buffer[], bytes: number): Buffer[] {
  const rest: Buffer[] = [];
  let skip = bytes;
  for (const chunk of chunks) {
    if (skip >= chunk.length) {
      skip -= chunk.length;
      continue;
    }
    rest.push(skip > 0 ? chunk.subarray(skip) : chunk);
    skip = 0;
  }
  return rest;
}
