import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database on the server of `adminUrl` for one benchmark run; `drop()` removes it. */
export async function createBenchDatabase(adminUrl: string, label: string): Promise<BenchDatabase> {
  const name = `bench_${label.replace(/[^a-z0-9_]/gi, '')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A JSON request that must succeed (2xx); the body of the answer. */
export async function fetchJson(url: string, init: RequestInit): Promise<any> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${new URL(url).pathname}: ${response.status} ${await response.text()}`);
  return response.json();
}
