import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The credentials of the servers `npm start`, `npm test` and `.ci/run` start (decisions 0055,
 * 0057): every password (each database role's, each NATS user's) and the call context secret are
 * derived from one random secret kept in a file only its owner may read, whose path the scripts
 * export as CATALOG_CREDENTIALS_FILE. Throwaway values for local servers, never a deployment's.
 */
export interface LocalCredentials {
  /** The file they come from; null for the ones a test process made up for itself. */
  file: string | null;
  postgresPassword(role: string): string;
  natsPassword(user: string): string;
  callContextSecret: string;
  /** The asset service's key for signed upload and download URLs (stable across restarts). */
  blobSigningSecret: string;
}

interface CredentialsFile {
  version: 1;
  secret: string;
}

function derive(secret: string, purpose: string): string {
  return createHmac('sha256', secret).update(purpose).digest('base64url').slice(0, 32);
}

function fromSecret(secret: string, file: string | null): LocalCredentials {
  return {
    file,
    postgresPassword: (role) => derive(secret, `postgres:${role}`),
    natsPassword: (user) => derive(secret, `nats:${user}`),
    callContextSecret: derive(secret, 'call-context'),
    blobSigningSecret: derive(secret, 'blob-signing'),
  };
}

export function readLocalCredentials(file: string): LocalCredentials {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<CredentialsFile>;
  if (parsed.version !== 1 || typeof parsed.secret !== 'string' || parsed.secret.length < 32)
    throw new Error(`${file} is not a credentials file of this project`);
  return fromSecret(parsed.secret, file);
}

/** Reads `file`, first creating it (mode 600) with a new random secret when it does not exist. */
export function ensureLocalCredentials(file: string): LocalCredentials {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const content: CredentialsFile = { version: 1, secret: randomBytes(32).toString('base64url') };
    // `wx`: when two scripts race, the second one reads what the first wrote.
    try {
      writeFileSync(file, `${JSON.stringify(content)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readLocalCredentials(file);
}

let made: LocalCredentials | undefined;
const read = new Map<string, LocalCredentials>();

/**
 * The credentials of the servers the tests run against: CATALOG_CREDENTIALS_FILE's, or (servers
 * brought without one) credentials this process makes up, which serve its database roles and call
 * contexts but no NATS users (`natsUsers()` is then false).
 */
export function testCredentials(): LocalCredentials {
  const file = process.env.CATALOG_CREDENTIALS_FILE;
  if (file) {
    if (!read.has(file)) read.set(file, readLocalCredentials(file));
    return read.get(file)!;
  }
  made ??= fromSecret(randomBytes(32).toString('base64url'), null);
  return made;
}

/** True when the test NATS server authorises users (its credentials file is known). */
export function natsUsers(): boolean {
  return testCredentials().file !== null;
}
