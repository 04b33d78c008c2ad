/** Penalty on a beat interval that strays from the period: tightness × log(interval / period)². */
const TIGHTNESS = 100;
/** Leading and trailing beats weaker than this share of the median beat are silence, not beats. */
const WEAK_BEAT = 0.1;

/**
 * Beat positions (frame indexes) of a normalised onset strength for a known period, by dynamic
 * programming (D. Ellis, "Beat tracking by dynamic programming", 2007): each frame's best score is
 * its strength plus the best predecessor half to two periods back, penalised for straying from
 * the period; the best end is followed back. Beats in leading or trailing silence are dropped.
 */
export function trackBeats(strength: Float32Array, period: number): number[] {
  const n = strength.length;
  if (n === 0 || !(period >= 2)) return [];
  const score = new Float32Array(n);
  const previous = new Int32Array(n).fill(-1);
  const nearest = Math.max(1, Math.round(period / 2));
  const farthest = Math.round(period * 2);
  const penalty = new Float32Array(farthest + 1);
  for (let gap = nearest; gap <= farthest; gap++) penalty[gap] = TIGHTNESS * Math.log(gap / period) ** 2;
  for (let t = 0; t < n; t++) {
    let best = -Infinity;
    let from = -1;
    for (let gap = nearest; gap <= farthest && gap <= t; gap++) {
      const candidate = score[t - gap]! - penalty[gap]!;
      if (candidate > best) {
        best = candidate;
        from = t - gap;
      }
    }
    score[t] = strength[t]! + (from >= 0 && best > 0 ? best : 0);
    previous[t] = from >= 0 && best > 0 ? from : -1;
  }
  let end = Math.max(0, n - Math.round(period));
  for (let t = end; t < n; t++) if (score[t]! > score[end]!) end = t;
  const beats: number[] = [];
  for (let t = end; t >= 0; t = previous[t]!) beats.push(t);
  beats.reverse();
  return trimWeak(beats, strength);
}

function trimWeak(beats: number[], strength: Float32Array): number[] {
  if (beats.length === 0) return beats;
  const local = beats.map((t) => Math.max(strength[t - 1] ?? 0, strength[t]!, strength[t + 1] ?? 0));
  const median = [...local].sort((a, b) => a - b)[Math.floor(local.length / 2)]!;
  let first = 0;
  let last = beats.length - 1;
  while (first <= last && local[first]! < WEAK_BEAT * median) first++;
  while (last >= first && local[last]! < WEAK_BEAT * median) last--;
  return beats.slice(first, last + 1);
}
