import type { UploadProgress } from '../upload/put.js';

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

const WIDTH = 30;

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * A progress bar on `out` (stderr): redrawn in place on a terminal; elsewhere (a pipe, a log) one
 * line each tenth of the way, so logs stay short. `done()` ends the line.
 */
export function progressBar(out: ProgressOutput, label: string): { update(progress: UploadProgress): void; done(): void } {
  let lastTenth = -1;
  let drawn = false;
  return {
    update({ sentBytes, totalBytes }) {
      const ratio = totalBytes > 0 ? Math.min(1, sentBytes / totalBytes) : 1;
      const percent = Math.floor(ratio * 100);
      const filled = Math.round(ratio * WIDTH);
      const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(percent).padStart(3)}% ${bytes(sentBytes)}/${bytes(totalBytes)}`;
      if (out.isTTY) {
        out.write(`\r${line}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor(percent / 10);
      if (tenth > lastTenth) {
        lastTenth = tenth;
        out.write(`${line}\n`);
      }
    },
    done() {
      if (drawn) out.write('\n');
    },
  };
}
