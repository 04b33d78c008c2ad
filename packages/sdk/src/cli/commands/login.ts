import { createCatalogClient, unwrap } from '../../client.js';
import { PaymentRequiredError, PermissionError } from '../../errors.js';
import { credentialsFile, saveCredentials } from '../config.js';
import type { Context, Options } from '../context.js';
import { UsageError } from '../exit-codes.js';

export const loginOptions: Options = { key: { type: 'string' } };

async function firstLine(input: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0]!.trim();
}

/**
 * `login --url URL [--key sk_…]`: checks the key against the API (a refused key is not stored,
 * exit 3) and stores address and key in $XDG_CONFIG_HOME/catalogctl/credentials.json, mode 0600.
 * Without --key, the key is read from the first line of stdin (so it stays out of the shell's history).
 */
export async function login(ctx: Context): Promise<void> {
  ctx.positionals();
  const baseUrl = ctx.string('url') ?? ctx.io.env.CATALOG_URL;
  if (!baseUrl) throw new UsageError('login needs --url (the gateway, e.g. http://localhost:8080)');
  if (!ctx.string('key') && !ctx.json) ctx.warn('API key (sk_…), then Enter:');
  const apiKey = ctx.string('key') ?? (await firstLine(ctx.io.stdin));
  if (!apiKey) throw new UsageError('no API key given (--key, or one line on stdin)');
  const client = createCatalogClient({ baseUrl, apiKey, userAgent: 'catalogctl' });
  try {
    await unwrap(client.api.GET('/api/v1/catalog/entities', { params: { query: { limit: 1 } } }));
  } catch (error) {
    // A valid key without the catalog permission (403) or product (402) is still a key: stored.
    if (!(error instanceof PermissionError || error instanceof PaymentRequiredError)) throw error;
  }
  const file = await saveCredentials(ctx.io.env, { baseUrl, apiKey });
  ctx.print({ baseUrl, credentialsFile: file }, () => `Logged in to ${baseUrl}; key stored in ${credentialsFile(ctx.io.env)} (mode 600)`);
}
