import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sineWav } from '@catalog/testing';

/** A key of every product and permission the SDK's tests use, with analysis credits. */
export const EVERYTHING = {
  products: ['catalog', 'library'],
  permissions: ['catalog:api', 'catalog:analysis', 'library:api'],
};

/** A temporary folder with a two-second 8 kHz tone as `tone.wav`; `remove` deletes it all. */
export async function toneFolder(): Promise<{ directory: string; tone: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'sdk-test-'));
  const tone = join(directory, 'tone.wav');
  await writeFile(tone, await sineWav(2, { sampleRate: 8_000 }));
  return { directory, tone, remove: () => rm(directory, { recursive: true, force: true }) };
}
