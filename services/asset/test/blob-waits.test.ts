import { Readable } from 'node:stream';
import { readConfig } from '@catalog/platform';
import { sineWav, testLogger } from '@catalog/testing';
import {
  createBlobStore,
  createUrlSigner,
  parseObjectKey,
  type BlobStore,
  type FsBlobStore,
  type StagedUpload,
} from '../src/persistence/blob/index.js';
import { assetConfig } from '../src/config.js';
import type { AssetDeps } from '../src/domain/assets.js';
import { confirmAsset } from '../src/domain/confirmation.js';
import { commitUpload } from '../src/domain/fs-uploads.js';
import { ffprobeAudio } from '../src/domain/probe.js';
import { verifications } from '../src/domain/verifications.js';
import type { AssetRow } from '../src/persistence/assets.js';
import { createAsset, put, startStack, type Backend, type Stack } from './support.js';

/**
 * Decision 0058: no transaction of the asset service holds an xid while it waits for the blob
 * store (an object store over the network, or a file system that may be one). Such a transaction
 * would hold back every outbox relay and the events feed of the cluster. The domain runs here on
 * the service's own database pool and a real blob store, which checks at each of its calls that no
 * connection of the asset service sits in a transaction with an xid.
 */
describe.each<Backend>(['fs', 's3'])('waits for the blob store on %s', (backend) => {
  let stack: Stack;
  let key: string;
  let deps: AssetDeps;
  let store: BlobStore;
  /** Transactions with an xid that waited on the service while the blob store was called. */
  const seen: Array<{ call: string; state: string; query: string }> = [];

  async function openTransactionsWithXid(call: string): Promise<void> {
    const rows = await stack.query<{ state: string; query: string }>(
      `select state, query from pg_stat_activity
        where datname = current_database() and application_name = 'asset' and backend_xid is not null and state like 'idle in transaction%'`,
    );
    seen.push(...rows.map((row) => ({ call, ...row })));
  }

  /** The real store; every call first records the transactions holding an xid at that moment. */
  function checking(real: BlobStore): BlobStore {
    return {
      backend: real.backend,
      start: () => real.start(),
      uploadTarget: async (spec) => (await openTransactionsWithXid('uploadTarget'), real.uploadTarget(spec)),
      stat: async (k) => (await openTransactionsWithXid('stat'), real.stat(k)),
      digest: async (k) => (await openTransactionsWithXid('digest'), real.digest(k)),
      read: async (k, range) => (await openTransactionsWithXid('read'), real.read(k, range)),
      remove: async (k) => (await openTransactionsWithXid('remove'), real.remove(k)),
      withLocalFile: async (k, use) => (await openTransactionsWithXid('withLocalFile'), real.withLocalFile(k, use)),
    };
  }

  beforeAll(async () => {
    stack = await startStack(backend);
    key = (await stack.api.tenant()).key;
    const config = readConfig(assetConfig, stack.env);
    const signer = createUrlSigner(stack.env.BLOB_SIGNING_SECRET!);
    store = await createBlobStore(config, signer, testLogger('blob-waits'));
    deps = {
      db: stack.asset.database.db,
      store: checking(store),
      signer,
      policy: config,
      probe: ffprobeAudio(config.ffprobePath, config.probeTimeoutMs),
      logger: testLogger('blob-waits'),
      listenerUrl: () => stack.asset.listenerUrl,
      // Only a version's file is recorded by the catalog (decision 0115); these are standalone files.
      catalog: { recordAssetState: () => Promise.reject(new Error('a standalone file is not the catalog’s')) },
      verifications: verifications<AssetRow>(() => undefined),
    };
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('confirms audio with no transaction holding an xid across a blob store call', async () => {
    const wav = await sineWav(1);
    const created = await createAsset(stack.api, key, { filename: 'tone.wav', contentType: 'audio/wav', size: wav.length });
    const [owner] = await stack.query<{ tenant_id: string }>('select tenant_id from asset.assets where id = $1', [created.assetId]);
    expect((await put(created.upload.url, created.upload.headers, { stream: Readable.from([wav]) }, wav.length)).status).toBe(200);
    const call = { tenantId: owner!.tenant_id, keyId: null, sourceSystem: 'test', requestId: 'r' };
    expect(await confirmAsset(deps, call, created.assetId)).toMatchObject({ status: 'ONLINE', durationMs: 1000 });
    expect(seen).toEqual([]);
  });

  if (backend === 'fs') {
    it('puts an fs upload in place with no transaction holding an xid while the file is renamed', async () => {
      const created = await createAsset(stack.api, key, { filename: 'cover.png', contentType: 'image/png', size: 16 });
      const objectKey = new URL(created.upload.url).pathname.slice('/uploads/'.length);
      const ref = parseObjectKey(objectKey)!;
      const staged = await (store as FsBlobStore).stage(objectKey, Readable.from([Buffer.alloc(16, 1)]), {
        maxBytes: 16,
        expectedSize: 16,
        expectedSha256: null,
      });
      const watched: StagedUpload = { ...staged, commit: async () => (await openTransactionsWithXid('commit'), staged.commit()) };
      await commitUpload(deps, ref, watched);
      expect(seen).toEqual([]);
      const [row] = await stack.query('select uploaded_size from asset.assets where id = $1', [ref.assetId]);
      expect(row).toEqual({ uploaded_size: '16' });
    });
  }
});
