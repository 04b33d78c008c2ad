import { unwrap } from '../../client.js';
import { table, type Context, type Options } from '../context.js';
import { UsageError } from '../exit-codes.js';

export const searchOptions: Options = {
  limit: { type: 'string' },
  after: { type: 'string' },
  key: { type: 'string' },
  'bpm-min': { type: 'string' },
  'bpm-max': { type: 'string' },
  'entity-type': { type: 'string' },
  sort: { type: 'string' },
};

function number(ctx: Context, name: string): number | undefined {
  const text = ctx.string(name);
  if (text === undefined) return undefined;
  if (text.trim() === '' || !Number.isFinite(Number(text))) throw new UsageError(`--${name} takes a number, not ${JSON.stringify(text)}`);
  return Number(text);
}

/** `library search [WORDS…] [--key K] [--bpm-min N] [--bpm-max N] [--entity-type T] [--sort S] [--limit N]`. */
export async function searchLibrary(ctx: Context): Promise<void> {
  const words = ctx.parsed.positionals.join(' ').trim();
  const client = await ctx.client();
  const entries = {
    q: words || undefined,
    key: ctx.string('key'),
    bpmMin: number(ctx, 'bpm-min'),
    bpmMax: number(ctx, 'bpm-max'),
    entityType: ctx.string('entity-type'),
    sort: ctx.string('sort'),
    limit: ctx.integer('limit'),
    after: ctx.string('after'),
  };
  const query = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
  const page = await unwrap(client.api.GET('/api/v1/library/tracks', { params: { query } }));
  ctx.print(page, () => {
    const rows = page.tracks.map((t) => [
      t.entityId,
      t.title,
      t.artist ?? '',
      t.bpm === null ? '' : String(Math.round(t.bpm)),
      t.key ?? '',
    ]);
    const text = table([['ENTITY', 'TITLE', 'ARTIST', 'BPM', 'KEY'], ...rows]);
    return page.hasMore ? `${text}\nmore: --after ${page.nextCursor}` : text;
  });
}
