import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { Context } from 'koa';

/**
 * Streaming files without V8's late collections (decision 0042). Every socket read and every
 * HTTP body chunk is a fresh 16–64 KiB buffer outside the JS heap, which V8 frees only when it
 * collects: a 1 GiB transfer left up to ~64 MB of them waiting per process. The relays below
 * hand each chunk on, and once the destination has written it (its write callback: the bytes are
 * in the kernel), give its memory back at once by detaching it (`ArrayBuffer.prototype.transfer(0)`:
 * standard since ES2024; on Node 20 behind `--harmony-rab-gsab-transfer`, which `serviceNodeFlags`
 * passes). Without it they are plain back-pressured relays.
 */
const transfer = (ArrayBuffer.prototype as { transfer?: (this: ArrayBuffer, length: number) => ArrayBuffer }).transfer;

/** Whether this process can release chunks early (see above). */
export const canReleaseChunks = typeof transfer === 'function';

/**
 * Frees the memory of a chunk this process alone holds and no longer needs: only a chunk that is
 * its whole ArrayBuffer (never a slice of a pool or of a larger buffer, which others may share).
 * The chunk reads as empty afterwards.
 */
export function releaseChunk(chunk: Uint8Array): void {
  if (!transfer) return;
  const { buffer } = chunk;
  if (chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength || buffer.byteLength === 0 || !(buffer instanceof ArrayBuffer))
    return;
  transfer.call(buffer, 0);
}

/** Why a relay stopped early: its source failed, or its destination failed or closed (a client gone). */
export class ChunkRelayError extends Error {
  constructor(
    readonly side: 'source' | 'destination',
    cause: Error,
  ) {
    super(`the relay's ${side} failed: ${cause.message}`, { cause });
    this.name = 'ChunkRelayError';
  }
}

const ignore = (): void => undefined;

export interface ChunkRelay {
  /** Resolves once `destination` has finished (all written); rejects with a `ChunkRelayError`. */
  readonly finished: Promise<void>;
  /** Stops relaying (like `unpipe`): the source is paused and left to its owner. */
  stop(): void;
}

export interface ChunkRelayOptions {
  /**
   * Whether a failing destination destroys the source (default true). False for a request body
   * relayed upstream: its client still needs an answer, so it is only paused.
   */
  destroySource?: boolean;
}

/**
 * Streams `source` into `destination` with back-pressure, like `pipe`, and ends it; each chunk
 * is released once the destination has written it, so only for sources whose chunks nobody else
 * keeps (socket and file reads). A destination that closes before it finished (a client gone)
 * destroys the source (unless `destroySource: false`); a failing source destroys the destination.
 */
export function relayChunks(source: Readable, destination: Writable, options: ChunkRelayOptions = {}): ChunkRelay {
  const settle = settlement();
  const detach = attachRelay(source, destination, options.destroySource !== false, settle);
  source.resume();
  return {
    finished: settle.finished,
    stop() {
      detach();
      source.pause();
      settle.resolve();
    },
  };
}

/** The relay's `finished` promise and what settles it. */
interface Settlement {
  finished: Promise<void>;
  resolve(): void;
  reject(error: ChunkRelayError): void;
}

function settlement(): Settlement {
  let resolve!: () => void;
  let reject!: (error: ChunkRelayError) => void;
  const finished = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  finished.catch(() => undefined); // a caller may only stop() it
  return { finished, resolve, reject };
}

/** An event listener as `on` and `off` take it. */
type Listener = Parameters<Readable['on']>[1];

/** Attaches the relay's listeners to both streams; returns the function that detaches them. */
function attachRelay(source: Readable, destination: Writable, destroySource: boolean, settle: Settlement): () => void {
  const written = (chunk: Buffer) => (error?: Error | null) => {
    // A failed write may still be referenced by the stream that failed: leave that one to the GC.
    if (!error) releaseChunk(chunk);
  };
  // After a failure both streams are left to be destroyed; an error either emits then has been dealt with.
  const ignoreLaterErrors = (): void => {
    source.on('error', ignore);
    destination.on('error', ignore);
  };
  const onSourceError = (error: Error): void => {
    detach();
    ignoreLaterErrors();
    destination.destroy(error);
    settle.reject(new ChunkRelayError('source', error));
  };
  const onDestinationError = (error: Error): void => {
    detach();
    ignoreLaterErrors();
    if (destroySource) source.destroy();
    else source.pause();
    settle.reject(new ChunkRelayError('destination', error));
  };
  const sourceListeners: Record<string, Listener> = {
    data: (chunk: Buffer) => {
      if (!destination.write(chunk, written(chunk))) source.pause();
    },
    end: () => destination.end(),
    error: onSourceError,
    aborted: () => onSourceError(Object.assign(new Error('the source was aborted'), { code: 'ECONNRESET' })),
  };
  const destinationListeners: Record<string, Listener> = {
    drain: () => source.resume(),
    finish: () => {
      detach();
      settle.resolve();
    },
    error: onDestinationError,
    close: () => {
      if (destination.writableFinished) return;
      onDestinationError(Object.assign(new Error('the destination closed before the end'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    },
  };
  function detach(): void {
    for (const [event, listener] of Object.entries(sourceListeners)) source.off(event, listener);
    for (const [event, listener] of Object.entries(destinationListeners)) destination.off(event, listener);
  }
  for (const [event, listener] of Object.entries(sourceListeners)) source.on(event, listener);
  for (const [event, listener] of Object.entries(destinationListeners)) destination.on(event, listener);
  return detach;
}

/**
 * Releases every buffer a socket reads once its `data` listeners have run: for a connection whose
 * reader copies what it needs synchronously (Node's HTTP client parser copies each body slice)
 * and that is used for one exchange only (no agent: its listeners are never re-registered ahead of
 * this one).
 */
export function releaseSocketReads(socket: Socket): void {
  socket.on('data', (chunk: Buffer) => releaseChunk(chunk));
}

/**
 * Sends `body` as the response of a Koa request whose status and headers are set, with
 * `relayChunks` instead of Koa's `pipe`, and resolves when it has been written (or the client went
 * away, which is not an error of this service). A failing body rejects; the response is cut off.
 */
export async function sendStreamBody(ctx: Context, body: Readable): Promise<void> {
  ctx.respond = false;
  if (ctx.method === 'HEAD') {
    body.destroy();
    ctx.res.end();
    return;
  }
  try {
    await relayChunks(body, ctx.res).finished;
  } catch (error) {
    if (error instanceof ChunkRelayError && error.side === 'destination') return;
    throw error;
  }
}
