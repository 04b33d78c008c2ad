import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cursorKey, fileCursorStore, memoryCursorStore } from '@catalog/sdk';

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'sdk-cursors-'));
});
afterEach(() => rm(directory, { recursive: true, force: true }));

test('one key per name and types filter: the order and repeats of the types do not matter', () => {
  expect(cursorKey('playout', ['entity.updated', 'entity.created', 'entity.created'])).toBe(
    cursorKey('playout', ['entity.created', 'entity.updated']),
  );
  expect(cursorKey('playout', ['entity.created'])).not.toBe(cursorKey('playout', ['entity.created', 'entity.updated']));
  expect(cursorKey('playout')).toBe(cursorKey('playout', []));
  expect(cursorKey('playout')).not.toBe(cursorKey('reports'));
});

test('the file store keeps a state per key across instances, in a 0600 file, with no temporary file left', async () => {
  const first = fileCursorStore(directory);
  expect(await first.load('a|*')).toBeNull();
  await first.save('a|*', { cursor: 'c1', recentIds: ['e1', 'e2'] });
  await first.save('b|entity.created', { cursor: 'c9', recentIds: [] });
  await first.save('a|*', { cursor: 'c2', recentIds: ['e2', 'e3'] });

  const second = fileCursorStore(directory);
  expect(await second.load('a|*')).toEqual({ cursor: 'c2', recentIds: ['e2', 'e3'] });
  expect(await second.load('b|entity.created')).toEqual({ cursor: 'c9', recentIds: [] });
  const files = await readdir(directory);
  expect(files).toHaveLength(2);
  expect(files.every((f) => f.endsWith('.json'))).toBe(true);
  for (const file of files) expect((await stat(join(directory, file))).mode & 0o777).toBe(0o600);
});

test('a file that is not a saved state is refused, not taken as a cursor', async () => {
  const store = fileCursorStore(directory);
  await store.save('a|*', { cursor: 'c1', recentIds: [] });
  const [file] = await readdir(directory);
  const path = join(directory, file!);
  const saved = JSON.parse(await readFile(path, 'utf8'));
  await writeFile(path, JSON.stringify({ key: 'other|*', state: saved.state }));
  await expect(store.load('a|*')).rejects.toThrow(/another key/);
  await writeFile(path, JSON.stringify({ key: 'a|*', state: { cursor: 7 } }));
  await expect(store.load('a|*')).rejects.toThrow(/malformed/);
});

test('the memory store hands out copies', async () => {
  const store = memoryCursorStore();
  const state = { cursor: 'c1', recentIds: ['e1'] };
  await store.save('k', state);
  state.recentIds.push('changed');
  const loaded = await store.load('k');
  expect(loaded).toEqual({ cursor: 'c1', recentIds: ['e1'] });
});
