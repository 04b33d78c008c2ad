import { existsSync } from 'node:fs';
import pg from 'pg';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readConfig } from '@catalog/platform';
import { eventually, testLogger } from '@catalog/testing';
import { assetConfig, startAssetService } from '../src/index.js';
import { put, startStack, type Stack } from './support.js';

/**
 * Standalone retention with tiny periods: confirmed standalone files expire after the retention
 * period, uploads never confirmed after their URL's expiry plus the grace, attached files stay.
 */
describe('retention sweeper', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    stack = await startStack('fs', {
      ASSET_STANDALONE_RETENTION_SECONDS: '2',
      ASSET_UPLOAD_URL_TTL_SECONDS: '3',
      ASSET_UNCONFIRMED_GRACE_SECONDS: '0',
      ASSET_SWEEP_INTERVAL_MS: '3600000',
    });
    key = (await stack.api.tenant()).key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  async function online(retention: string): Promise<string> {
    const created = await stack.api.request('POST', '/api/v1/catalog/assets', {
      key,
      body: { retention, upload: { filename: 'x.png', contentType: 'image/png' } },
    });
    expect(
      (await put(created.body.upload.url, created.body.upload.headers, { stream: Readable.from([Buffer.alloc(64, 1)]) }, 64)).status,
    ).toBe(200);
    expect((await stack.api.request('POST', `/api/v1/catalog/assets/${created.body.assetId}/confirm`, { key })).status).toBe(200);
    return created.body.assetId;
  }
  const read = async (id: string) => (await stack.api.request('GET', `/api/v1/catalog/assets/${id}`, { key })).body;

  it('expires standalone files and unconfirmed uploads, removes their bytes, and keeps attached files; replicas share the work', async () => {
    const standalone = await online('standalone');
    const attached = await online('attached');
    const pending = (
      await stack.api.request('POST', '/api/v1/catalog/assets', {
        key,
        body: { retention: 'attached', upload: { filename: 'y.png', contentType: 'image/png' } },
      })
    ).body.assetId as string;
    const [row] = await stack.query<{ tenant_id: string; object_key: string }>(
      'select tenant_id, object_key from asset.assets where id = $1',
      [standalone],
    );
    const blob = join(stack.blobDir, 'objects', row!.object_key);
    expect(existsSync(blob)).toBe(true);
    expect((await read(standalone)).expiresAt).not.toBeNull();
    expect((await read(attached)).expiresAt).toBeNull();

    // A second replica sweeps at the same time as the first.
    const replica = await startAssetService(readConfig(assetConfig, { ...stack.env, ASSET_SWEEP_INTERVAL_MS: '3600000' }), {
      logger: testLogger('replica'),
    });
    try {
      await eventually(
        async () => {
          await Promise.all([stack.asset.sweep(), replica.sweep(), stack.asset.sweep(), replica.sweep()]);
          const [a, b] = [await read(standalone), await read(pending)];
          return a.status === 'EXPIRED' && b.status === 'EXPIRED' ? true : undefined;
        },
        15_000,
        250,
      );
    } finally {
      await replica.stop();
    }

    expect(await read(standalone)).toMatchObject({ status: 'EXPIRED', failure: { code: 'retention_elapsed' } });
    expect(await read(pending)).toMatchObject({ status: 'EXPIRED', failure: { code: 'upload_not_confirmed' } });
    expect(await read(attached)).toMatchObject({ status: 'ONLINE', expiresAt: null });
    expect(existsSync(blob)).toBe(false);
    const download = await stack.api.request('GET', `/api/v1/catalog/assets/${standalone}/download`, { key });
    expect(download.status).toBe(409);
    const confirm = await stack.api.request('POST', `/api/v1/catalog/assets/${standalone}/confirm`, { key });
    expect(confirm.body.error.code).toBe('asset_expired');

    const expiredEvents = await stack.query<{ resource_id: string; data: any; source_system: string }>(
      "select resource_id, data, source_system from asset.outbox where type = 'asset.expired' order by seq",
    );
    expect(expiredEvents).toHaveLength(2);
    expect(expiredEvents.find((e) => e.resource_id === standalone)).toMatchObject({
      source_system: 'system:asset-retention',
      data: { status: 'EXPIRED', reason: 'retention_elapsed', retention: 'standalone', size: 64 },
    });
    expect(expiredEvents.find((e) => e.resource_id === pending)!.data.reason).toBe('upload_not_confirmed');
    expect(await stack.query('select * from asset.expiries')).toEqual([]);
  });

  it('leaves an asset whose upload is being put in place (its upload lock held) for the next pass', async () => {
    const pending = (
      await stack.api.request('POST', '/api/v1/catalog/assets', {
        key,
        body: { retention: 'standalone', upload: { filename: 'z.png', contentType: 'image/png' } },
      })
    ).body.assetId as string;
    await eventually(
      async () =>
        (await stack.query('select 1 from asset.expiries where asset_id = $1 and due_at <= now()', [pending])).length > 0
          ? true
          : undefined,
      15_000,
      250,
    );
    const holder = new pg.Client({ connectionString: stack.database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query("select pg_advisory_xact_lock(hashtextextended('asset-upload:' || $1, 0))", [pending]);
      await stack.asset.sweep();
      expect(await read(pending)).toMatchObject({ status: 'PENDING_UPLOAD' });
      await holder.query('commit');
      await stack.asset.sweep();
      expect(await read(pending)).toMatchObject({ status: 'EXPIRED', failure: { code: 'upload_not_confirmed' } });
    } finally {
      await holder.end();
    }
  });
});
