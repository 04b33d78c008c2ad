import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCursorState, type CursorState, type CursorStore } from './cursor-store.js';

/**
 * A cursor store in a folder: one JSON file per key. A save writes a temporary file beside the
 * target, fsyncs it, renames it over the target and fsyncs the folder, so a crash at any point
 * leaves either the previous state or the new one, never a torn file.
 */
export function fileCursorStore(directory: string): CursorStore {
  const fileOf = (key: string) => join(directory, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
  return {
    async load(key) {
      let text: string;
      try {
        text = await readFile(fileOf(key), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      const stored = JSON.parse(text) as { key?: unknown; state?: unknown };
      if (stored.key !== key) throw new Error(`cursor file ${fileOf(key)} holds another key`);
      return parseCursorState(stored.state);
    },
    async save(key, state) {
      await mkdir(directory, { recursive: true, mode: 0o700 });
      await writeAtomically(fileOf(key), JSON.stringify({ key, state } satisfies { key: string; state: CursorState }));
    },
  };
}

/** tmp + fsync + rename + fsync of the folder. */
async function writeAtomically(target: string, content: string): Promise<void> {
  const temporary = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const folder = await open(join(target, '..'), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
