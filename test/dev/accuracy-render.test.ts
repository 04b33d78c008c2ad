import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tuningCorpus, type Piece } from '../../bench/accuracy/corpus.js';
import { pieceFile, renderPieces } from '../../bench/accuracy/render.js';

/**
 * bench/accuracy/render.ts (decision 0187): a tuning piece's audio is a function of the piece
 * alone, so `tune.ts weights` learns the same weights whatever the render cache held before.
 */
const caches: string[] = [];
afterAll(() => caches.forEach((cache) => rmSync(cache, { recursive: true, force: true })));

/** Renders `pieces` into an empty cache of their own; each piece's bytes. */
async function renderedInto(pieces: Piece[]): Promise<Map<string, Buffer>> {
  const cache = mkdtempSync(join(tmpdir(), 'catalog-render-test-'));
  caches.push(cache);
  process.env.BENCH_ACCURACY_CACHE = cache;
  try {
    const files = await renderPieces(pieces, () => {});
    for (const piece of pieces) expect(files.get(piece.id)).toBe(pieceFile(piece));
    return new Map(pieces.map((piece) => [piece.id, readFileSync(files.get(piece.id)!)]));
  } finally {
    delete process.env.BENCH_ACCURACY_CACHE;
  }
}

test('a tuning piece renders to the same bytes alone and after other pieces of its sound font', async () => {
  const drummed = tuningCorpus(['song']).filter((piece) => piece.font === 'fluidr3' && piece.spec.drums !== null && !piece.speech);
  const [first, second, piece] = [drummed[0]!, drummed[1]!, drummed[2]!];
  const alone = await renderedInto([piece]);
  const among = await renderedInto([first, second, piece]);
  expect(alone.get(piece.id)!.length).toBeGreaterThan(100_000);
  expect(among.get(piece.id)!.equals(alone.get(piece.id)!)).toBe(true);
}, 120_000);
