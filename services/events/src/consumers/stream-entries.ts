import type { JetStreamManager } from '@nats-io/jetstream';
import { entryOf, type StreamEntry } from '../domain/stream-entry.js';

/**
 * Messages `from`..`to` read from the stream by sequence: those delivered to a writer that died or
 * lost with a connection. Sequences the stream's limits already removed are left out.
 */
export async function readStreamRange(jsm: JetStreamManager, stream: string, from: number, to: number): Promise<StreamEntry[]> {
  const info = await jsm.streams.info(stream);
  const entries: StreamEntry[] = [];
  for (let seq = Math.max(from, info.state.first_seq); seq <= to; seq += 1) {
    const stored = await jsm.streams.getMessage(stream, { seq });
    if (stored) entries.push(entryOf(seq, stored.subject, stored.data));
  }
  return entries;
}
