import { sleep } from '@catalog/platform';

/**
 * How long after `since` (performance.now()) the library answered every one of `tracks` (the
 * entities whose audio was confirmed last) as a track, in ms; null if not within `timeoutMs`.
 */
export async function libraryCatchUpMs(
  base: string,
  tracks: ReadonlyArray<{ key: string; entityId: string }>,
  since: number,
  timeoutMs: number,
): Promise<number | null> {
  const waiting = new Set(tracks);
  while (waiting.size > 0) {
    if (performance.now() - since > timeoutMs) return null;
    for (const track of [...waiting]) {
      const answer = await fetch(`${base}/api/v1/library/tracks/${track.entityId}`, {
        headers: { authorization: `Bearer ${track.key}` },
        signal: AbortSignal.timeout(5_000),
      }).catch(() => null);
      await answer?.body?.cancel();
      if (answer?.status === 200) waiting.delete(track);
    }
    if (waiting.size > 0) await sleep(200);
  }
  return Math.round(performance.now() - since);
}
