/** The catalogctl process: wires stdin/stdout/stderr, the environment and Ctrl-C to `main`. */
import { main } from './main.js';

const controller = new AbortController();
let interrupted = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted += 1;
    // A second Ctrl-C does not wait for the page being printed.
    if (interrupted > 1) process.exit(130);
    controller.abort();
  });
}
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  signal: controller.signal,
});
