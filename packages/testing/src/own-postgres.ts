import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A Postgres cluster of one test file's own, for tests that hold a transaction open on purpose:
 * the feed reads only below `pg_snapshot_xmin`, which is the whole cluster's, so a transaction
 * held open on the shared server stalls every other suite's feed (the outbox relay waits only for
 * its own database's, decision 0167).
 * It listens on a Unix socket in its own folder only (no TCP port another process could take).
 */
export interface OwnPostgres {
  /** The administrator (`postgres`, trust authentication) over the cluster's socket. */
  url: string;
  stop(): Promise<void>;
}

/** `PG_BIN` (set by scripts/lib/infra.sh), `initdb` on PATH, or the newest of /usr/lib/postgresql/N/bin. */
function postgresBinaries(): string {
  const fromEnv = process.env.PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((name) => existsSync(join('/usr/lib/postgresql', name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join('/usr/lib/postgresql', versions[0], 'bin');
  throw new Error('PostgreSQL server binaries not found: set PG_BIN (scripts/lib/infra.sh ensure_postgres installs them)');
}

/** Postgres refuses to run as root: as root, the cluster runs as the system user infra.sh uses. */
async function clusterUser(): Promise<ClusterUser | null> {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'catalogpg']) {
    try {
      const [uid, gid] = await Promise.all(['-u', '-g'].map(async (flag) => Number((await run('id', [flag, name])).stdout.trim())));
      return { name, uid: uid!, gid: gid! };
    } catch {
      // no such user
    }
  }
  throw new Error('running as root, but neither the postgres nor the catalogpg system user exists to run a cluster');
}

interface ClusterUser {
  name: string;
  uid: number;
  gid: number;
}

async function asClusterUser(user: ClusterUser | null, binary: string, args: string[]): Promise<void> {
  const [command, argv] = user ? ['runuser', ['-u', user.name, '--', binary, ...args]] : [binary, args];
  try {
    await run(command, argv, { cwd: '/', timeout: 120_000 });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`${binary} ${args.join(' ')} failed: ${(error as Error).message}\n${stderr ?? ''}`);
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBinaries();
  const user = await clusterUser();
  const dir = mkdtempSync(join(tmpdir(), 'catalog-own-pg-'));
  chmodSync(dir, 0o755); // the cluster's user must reach its data and socket below
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  mkdirSync(data, { mode: 0o700 });
  mkdirSync(socket, { mode: 0o700 });
  if (user) for (const path of [data, socket]) chownSync(path, user.uid, user.gid);
  const pgCtl = join(bin, 'pg_ctl');
  try {
    await asClusterUser(user, join(bin, 'initdb'), ['-D', data, '--auth=trust', '--username=postgres', '-E', 'UTF8', '--locale=C', '-N']);
    const options = [
      "-c listen_addresses=''",
      `-c unix_socket_directories=${socket}`,
      '-c max_connections=100 -c shared_buffers=32MB',
      '-c fsync=off -c synchronous_commit=off -c full_page_writes=off',
    ].join(' ');
    await asClusterUser(user, pgCtl, ['start', '-D', data, '-l', join(socket, 'postgres.log'), '-w', '-t', '90', '-s', '-o', options]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socket)}`,
    async stop() {
      await asClusterUser(user, pgCtl, ['stop', '-D', data, '-m', 'immediate', '-s']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
