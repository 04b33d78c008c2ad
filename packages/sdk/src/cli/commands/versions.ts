import { basename } from 'node:path';
import { addVersionFromFile } from '../../upload/upload.js';
import type { Context, Options } from '../context.js';
import { progressBar } from '../progress.js';

export const addOptions: Options = {
  label: { type: 'string' },
  'version-type': { type: 'string', default: 'other' },
  primary: { type: 'boolean', default: false },
  'content-type': { type: 'string' },
};

/**
 * `versions add ENTITY FILE [--label L] [--version-type T] [--primary] [--content-type CT]`:
 * create the version, upload the file with a progress bar on stderr (not with --json), confirm.
 */
export async function addVersion(ctx: Context): Promise<void> {
  const [entityId, file] = ctx.positionals('ENTITY', 'FILE') as [string, string];
  const client = await ctx.client();
  const bar = ctx.json ? null : progressBar(ctx.io.stderr, basename(file));
  const contentType = ctx.string('content-type');
  const uploaded = await addVersionFromFile(client, entityId, file, {
    label: ctx.string('label') ?? basename(file),
    versionType: ctx.string('version-type') ?? 'other',
    ...(ctx.flag('primary') ? { isPrimary: true } : {}),
    ...(contentType ? { contentType } : {}),
    ...(bar ? { onProgress: (p) => bar.update(p) } : {}),
    signal: ctx.io.signal,
  });
  bar?.done();
  const { version, asset } = uploaded;
  ctx.print({ version: { ...version, upload: undefined }, asset }, () => `${version.id} ${asset.status} ${asset.checksum ?? ''}`.trim());
}
