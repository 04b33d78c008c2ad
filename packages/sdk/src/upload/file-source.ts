import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** A file to upload: a path, or a stream (spooled to a temporary file first, to learn its size and sha256). */
export type UploadInput = string | { stream: Readable | ReadableStream<Uint8Array>; filename: string; contentType?: string };

/** A file ready to send: on disk, with what the create call declares. */
export interface PreparedFile {
  path: string;
  filename: string;
  contentType: string;
  size: number;
  /** `sha256:<hex>` of the bytes. */
  checksum: string;
  /** Removes the temporary copy of a stream (nothing for a path). */
  dispose(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.flac': 'audio/flac',
  '.aac': 'audio/aac',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/opus',
  '.aif': 'audio/aiff',
  '.aiff': 'audio/aiff',
  '.weba': 'audio/webm',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.avif': 'image/avif',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.mpg': 'video/mpeg',
  '.mpeg': 'video/mpeg',
};

/** The content type of a file name by its extension (the types the API accepts), or undefined. */
export function contentTypeOf(filename: string): string | undefined {
  return CONTENT_TYPES[extname(filename).toLowerCase()];
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return `sha256:${hash.digest('hex')}`;
}

async function spool(stream: Readable | ReadableStream<Uint8Array>): Promise<{ path: string; directory: string }> {
  const directory = await mkdtemp(join(tmpdir(), 'catalog-sdk-upload-'));
  const path = join(directory, randomBytes(8).toString('hex'));
  const source = stream instanceof Readable ? stream : Readable.fromWeb(stream as WebReadableStream<Uint8Array>);
  try {
    await pipeline(source, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return { path, directory };
}

/** The file of `input` on disk with its size, sha256, name and content type (`contentType` wins). */
export async function prepareFile(input: UploadInput, contentType?: string): Promise<PreparedFile> {
  const spooled = typeof input === 'string' ? null : await spool(input.stream);
  const path = spooled?.path ?? (input as string);
  const filename = typeof input === 'string' ? basename(input) : input.filename;
  const type = contentType ?? (typeof input === 'string' ? undefined : input.contentType) ?? contentTypeOf(filename);
  const dispose = async () => {
    if (spooled) await rm(spooled.directory, { recursive: true, force: true });
  };
  if (!type) {
    await dispose();
    throw new Error(`no content type for ${filename}: pass one (e.g. audio/wav)`);
  }
  const [{ size }, checksum] = await Promise.all([stat(path), sha256Of(path)]);
  return { path, filename, contentType: type, size, checksum, dispose };
}

/** A stream of the file that reports the bytes read so far. */
export function countingStream(path: string, onBytes: (sent: number) => void): Readable {
  let sent = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      onBytes(sent);
      done(null, chunk);
    },
  });
  return createReadStream(path).pipe(counter);
}
