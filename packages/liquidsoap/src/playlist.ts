import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes the playlist atomically (a temporary file beside it, fsynced, renamed over it): Liquidsoap
 * reloading it (`reload_mode="watch"`) reads the old list or the new one, never half of one.
 */
export async function writePlaylist(path: string, lines: readonly string[]): Promise<void> {
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  const temporary = join(folder, `.${randomBytes(4).toString('hex')}.m3u.tmp`);
  try {
    const file = await open(temporary, 'wx', 0o644);
    try {
      await file.writeFile(`#EXTM3U\n${lines.map((line) => `${line}\n`).join('')}`);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } finally {
    await rm(temporary, { force: true });
  }
}
