import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { unwrap, type CatalogClient } from '@catalog/sdk';
import type { SourceFile } from './catalog.js';

/** Types Liquidsoap (with its ffmpeg decoder) plays, and the extension its file gets. */
const PLAYABLE: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/flac': 'flac',
  'audio/x-flac': 'flac',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/aac': 'aac',
  'audio/mp4': 'm4a',
  'audio/x-m4a': 'm4a',
};

/** Why a song cannot be synced: reported `failed` with this reason. */
export class UnsyncableError extends Error {}

export async function sha256File(path: string): Promise<string | null> {
  const hash = createHash('sha256');
  try {
    await pipeline(createReadStream(path), hash);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return hash.digest('hex');
}

export interface MediaFolder {
  /** The file of a version in the folder: named by the version, so a new primary is a new file. */
  pathOf(versionId: string, file: SourceFile): string;
  /** The file in place, its bytes checked: true when it was downloaded, false when the folder held it already. */
  ensure(versionId: string, file: SourceFile): Promise<boolean>;
  remove(path: string): Promise<void>;
  /** Files of the folder no song uses (left by a connector stopped between download and removal). */
  strays(kept: ReadonlySet<string>): Promise<string[]>;
}

export function mediaFolder(client: CatalogClient, directory: string): MediaFolder {
  const pathOf = (versionId: string, file: SourceFile): string => {
    const extension = PLAYABLE[file.contentType.split(';')[0]!.trim().toLowerCase()];
    if (!extension) throw new UnsyncableError(`format not playable by Liquidsoap: ${file.contentType}`);
    return join(directory, `${versionId}.${extension}`);
  };
  return {
    pathOf,
    async ensure(versionId, file) {
      const target = pathOf(versionId, file);
      const expected = file.checksum?.startsWith('sha256:') ? file.checksum.slice('sha256:'.length) : null;
      if (expected === null) throw new UnsyncableError('the file has no checksum yet (not confirmed)');
      if ((await sha256File(target)) === expected) return false;
      await mkdir(directory, { recursive: true });
      const temporary = `${target}.${randomBytes(4).toString('hex')}.part`;
      try {
        const answer = await unwrap(
          client.api.GET('/api/v1/catalog/assets/{id}/download', { params: { path: { id: file.assetId } }, parseAs: 'stream' }),
        );
        if (!answer) throw new UnsyncableError('the download had no body');
        const hash = createHash('sha256');
        const out = await open(temporary, 'w', 0o644);
        try {
          const body = Readable.fromWeb(answer as ReadableStream<Uint8Array>);
          for await (const chunk of body) {
            hash.update(chunk as Uint8Array);
            await out.write(chunk as Uint8Array);
          }
          await out.sync();
        } finally {
          await out.close();
        }
        if (hash.digest('hex') !== expected) throw new UnsyncableError('the downloaded bytes do not match the checksum');
        // Liquidsoap only ever sees a whole file: it appears under its name at once.
        await rename(temporary, target);
        return true;
      } finally {
        await rm(temporary, { force: true });
      }
    },
    async remove(path) {
      await rm(path, { force: true });
    },
    async strays(kept) {
      let names: string[];
      try {
        names = await readdir(directory);
      } catch {
        return [];
      }
      const ours = /^[0-9a-f-]{36}\.[a-z0-9]+(\.[0-9a-f]{8}\.part)?$/;
      return names
        .filter((name) => ours.test(name))
        .map((name) => join(directory, name))
        .filter((path) => !kept.has(path));
    },
  };
}
