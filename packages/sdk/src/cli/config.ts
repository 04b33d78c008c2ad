import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './exit-codes.js';

/** What `catalogctl login` stores: the gateway's address and the API key. */
export interface Credentials {
  baseUrl: string;
  apiKey: string;
}

export type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/catalogctl` (default `~/.config/catalogctl`). */
export function configDirectory(env: Env): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'catalogctl');
}

/** `$XDG_STATE_HOME/catalogctl` (default `~/.local/state/catalogctl`): where `events tail --name` keeps cursors. */
export function stateDirectory(env: Env): string {
  return join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'catalogctl');
}

export const credentialsFile = (env: Env): string => join(configDirectory(env), 'credentials.json');

/** Writes the credentials readable by the user alone (0600, in a 0700 folder), replacing the file atomically. */
export async function saveCredentials(env: Env, credentials: Credentials): Promise<string> {
  const directory = configDirectory(env);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const target = credentialsFile(env);
  const temporary = `${target}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(`${JSON.stringify(credentials, null, 2)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await chmod(temporary, 0o600);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return target;
}

async function storedCredentials(env: Env, warn: (line: string) => void): Promise<Partial<Credentials>> {
  const file = credentialsFile(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  if (((await stat(file)).mode & 0o077) !== 0) warn(`warning: ${file} is readable by others; run chmod 600 ${file}`);
  return JSON.parse(text) as Partial<Credentials>;
}

/**
 * The credentials of a command: `--url` over `CATALOG_URL` over the stored address; the key from
 * `CATALOG_API_KEY` over the stored one. A missing one is a usage error (run `catalogctl login`).
 */
export async function resolveCredentials(env: Env, url: string | undefined, warn: (line: string) => void): Promise<Credentials> {
  const stored = await storedCredentials(env, warn);
  const baseUrl = url ?? env.CATALOG_URL ?? stored.baseUrl;
  const apiKey = env.CATALOG_API_KEY ?? stored.apiKey;
  if (!baseUrl || !apiKey) throw new UsageError('not logged in: run `catalogctl login --url URL` (or set CATALOG_URL and CATALOG_API_KEY)');
  return { baseUrl, apiKey };
}
