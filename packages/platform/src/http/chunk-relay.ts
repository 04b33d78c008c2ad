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
  let resolveFinished!: () => void;
  let rejectFinished!: (error: ChunkRelayError) => void;
  const finished = new Promise<void>((resolve, reject) => {
    resolveFinished = resolve;
    rejectFinished = reject;
  });
  finished.catch(() => undefined); // a caller may only stop() it

  const written = (chunk: Buffer) => (error?: Error | null) => {
    // A failed write may still be referenced by the stream that failed: leave that one to the GC.
    if (!error) releaseChunk(chunk);
  };
  const onData = (chunk: Buffer): void => {
    if (!destination.write(chunk, written(chunk))) source.pause();
  };
  const onDrain = (): void => {
    source.resume();
  };
  const onEnd = (): void => {
    destination.end();
  };
  const onFinish = (): void => {
    detach();
    resolveFinished();
  };
  const onSourceError = (error: Error): void => {
    detach();
    ignoreLaterErrors();
    destination.destroy(error);
    rejectFinished(new ChunkRelayError('source', error));
  };
  const onSourceAborted = (): void => onSourceError(Object.assign(new Error('the source was aborted'), { code: 'ECONNRESET' }));
  const onDestinationError = (error: Error): void => {
    detach();
    ignoreLaterErrors();
    if (options.destroySource === false) source.pause();
    else source.destroy();
    rejectFinished(new ChunkRelayError('destination', error));
  };
  const onDestinationClose = (): void => {
    if (destination.writableFinished) return;
    onDestinationError(Object.assign(new Error('the destination closed before the end'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  };
  // After a failure both streams are left to be destroyed; an error either emits then has been dealt with.
  function ignoreLaterErrors(): void {
    source.on('error', ignore);
    destination.on('error', ignore);
  }
  function detach(): void {
    source.off('data', onData);
    source.off('end', onEnd);
    source.off('error', onSourceError);
    source.off('aborted', onSourceAborted);
    destination.off('drain', onDrain);
    destination.off('finish', onFinish);
    destination.off('error', onDestinationError);
    destination.off('close', onDestinationClose);
  }

  source.on('data', onData);
  source.on('end', onEnd);
  source.on('error', onSourceError);
  source.on('aborted', onSourceAborted);
  destination.on('drain', onDrain);
  destination.on('finish', onFinish);
  destination.on('error', onDestinationError);
  destination.on('close', onDestinationClose);
  source.resume();

  return {
    finished,
    stop() {
      detach();
      source.pause();
      resolveFinished();
    },
  };
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
