import { unwrap } from '../../client.js';
import type { Entity, RequestBody } from '../../types.js';
import { table, type Context, type Options } from '../context.js';
import { UsageError } from '../exit-codes.js';

export const listOptions: Options = { limit: { type: 'string' }, after: { type: 'string' }, type: { type: 'string' } };
export const createOptions: Options = {
  type: { type: 'string' },
  title: { type: 'string' },
  artist: { type: 'string' },
  dmrn: { type: 'string' },
};

const rowOf = (e: Entity): string[] => [e.id, e.type, e.title, e.artist ?? ''];

/** `entities ls [--limit N] [--after CURSOR] [--type TYPE]`: a page of entities, oldest first. */
export async function listEntities(ctx: Context): Promise<void> {
  ctx.positionals();
  const client = await ctx.client();
  const query = {
    ...(ctx.integer('limit') !== undefined ? { limit: ctx.integer('limit') } : {}),
    ...(ctx.string('after') ? { after: ctx.string('after') } : {}),
    ...(ctx.string('type') ? { type: ctx.string('type') } : {}),
  };
  const page = await unwrap(client.api.GET('/api/v1/catalog/entities', { params: { query } }));
  ctx.print(page, () => {
    const rows = table([['ID', 'TYPE', 'TITLE', 'ARTIST'], ...page.entities.map(rowOf)]);
    return page.hasMore ? `${rows}\nmore: --after ${page.nextCursor}` : rows;
  });
}

/** `entities create --type TYPE --title TITLE [--artist A] [--dmrn D]`. */
export async function createEntity(ctx: Context): Promise<void> {
  ctx.positionals();
  const type = ctx.string('type');
  const title = ctx.string('title');
  if (!type || !title) throw new UsageError('entities create needs --type and --title');
  const body = {
    type,
    title,
    ...(ctx.string('artist') ? { artist: ctx.string('artist') } : {}),
    ...(ctx.string('dmrn') ? { externalReferences: { dmrn: ctx.string('dmrn') } } : {}),
  } as RequestBody<'createEntity'>;
  const client = await ctx.client();
  const entity = await unwrap(client.api.POST('/api/v1/catalog/entities', { body }));
  ctx.print(entity, () => entity.id);
}

/** `entities get ID`. */
export async function getEntity(ctx: Context): Promise<void> {
  const [id] = ctx.positionals('ID') as [string];
  const client = await ctx.client();
  const entity = await unwrap(client.api.GET('/api/v1/catalog/entities/{id}', { params: { path: { id } } }));
  ctx.print(entity, () => table([['ID', 'TYPE', 'TITLE', 'ARTIST'], rowOf(entity)]));
}
