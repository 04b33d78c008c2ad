import v8 from 'node:v8';
import vm from 'node:vm';

/** V8's `gc()`: a full collection, or a young-generation one with `{ type: 'minor' }`. */
export type Collect = (options?: { type: 'minor' | 'major' }) => void;

/** `gc()` in a process not started with `--expose-gc` (tests and benchmark clients that must time or check collections). */
export function exposedGc(): Collect {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as Collect;
}
