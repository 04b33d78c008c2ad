/**
 * bench/upload: a 1 GiB audio file uploaded and downloaded through the gateway on the fs blob
 * backend (client → gateway → asset service listener → disk, and back), against a plain `cp` of
 * the same file on the same disk in the same run; peak RSS (VmHWM) of the gateway and the asset
 * service, each a child process running the built output. The client is curl, streaming.
 *
 * Needs DATABASE_URL and NATS_URL (scripts/bench.sh starts them), built services (`npm run build`),
 * curl and ffmpeg. BENCH_DIR (default the system temp dir) is where the file, the copies and the
 * blob store live; BENCH_UPLOAD_MIB sets the size (default 1024). Results: bench/results/upload.json.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machine, repoRoot, startService, type BenchProcess } from '../support/processes.js';
import { benchEnv, createBenchDatabase, fetchJson } from '../support/setup.js';

/** Drops the kernel's page cache (needs the right to write /proc/sys/vm/drop_caches); false when not allowed. */
function dropPageCache(): boolean {
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}
import { apiClient, freePort, writeSineWav } from '@catalog/testing';

const MiB = 1024 * 1024;
const SIZE_MIB = Number(process.env.BENCH_UPLOAD_MIB ?? 1024);

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * MiB })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Runs a command and returns how long it took in seconds. */
async function timed(command: string, args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
  });
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Resident set size now (VmRSS), in MiB. */
function rssMiB(pid: number | undefined): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

const mbPerSecond = (bytes: number, seconds: number): number => Math.round((bytes / 1e6 / seconds) * 10) / 10;

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.NATS_URL)
    throw new Error('DATABASE_URL and NATS_URL are required (run via npm run bench -- upload)');
  const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'bench-upload-'));
  const database = await createBenchDatabase('upload');
  const processes: BenchProcess[] = [];
  try {
    // The file: a sine tone as 44.1 kHz mono 16-bit WAV (88,200 bytes a second) of SIZE_MIB.
    const source = join(work, 'mix.wav');
    const seconds = Math.ceil((SIZE_MIB * MiB) / 88_200);
    await writeSineWav(source, seconds);
    const size = statSync(source).size;
    const sourceSha = await sha256(source); // also puts the file in the page cache for every reader below

    const cpSeconds = await timed('cp', [source, join(work, 'copy.wav')]);
    const cpSyncSeconds = await timed('dd', [`if=${source}`, `of=${join(work, 'copy-synced.wav')}`, 'bs=4M', 'conv=fsync', 'status=none']);
    rmSync(join(work, 'copy.wav'));
    rmSync(join(work, 'copy-synced.wav'));

    const gatewayPort = await freePort();
    const assetPort = await freePort();
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    const { env, adminToken } = await benchEnv(database, {
      DB_POOL_SIZE: '5',
      BLOB_BACKEND: 'fs',
      BLOB_DIR: join(work, 'blobs'),
      BLOB_SIGNING_SECRET: randomBytes(32).toString('hex'),
      PUBLIC_BASE_URL: gatewayUrl,
      RPC_TIMEOUT_MS: '60000',
      // Above the RPC timeout, as the gateway requires.
      HTTP_IDLE_TIMEOUT_MS: '90000',
    });
    const asset = await startService('asset', env, assetPort);
    processes.push(asset);
    const gateway = await startService('gateway', env, gatewayPort);
    processes.push(gateway);

    const { key } = await apiClient(gatewayUrl, adminToken).tenant({ name: 'Bench FM' });
    const auth = { authorization: `Bearer ${key}` };
    const created = await fetchJson(`${gatewayUrl}/api/v1/catalog/assets`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        retention: 'standalone',
        upload: { filename: 'mix.wav', contentType: 'audio/wav', size, checksum: `sha256:${sourceSha}` },
      }),
    });

    const idleRssMiB = { gateway: rssMiB(gateway.child.pid), asset: rssMiB(asset.child.pid) };
    const uploadHeaders = Object.entries(created.upload.headers as Record<string, string>).flatMap(([name, value]) => [
      '-H',
      `${name}: ${value}`,
    ]);
    const resetPeaks = () => gateway.resetPeakRss() && asset.resetPeakRss();
    const peaks = () => ({ gateway: gateway.peakRssMiB(), asset: asset.peakRssMiB() });
    const startupPeakRssMiB = peaks();
    const phasePeaks = resetPeaks();
    const uploadSeconds = await timed('curl', ['-sS', '-f', '-o', '/dev/null', '-T', source, ...uploadHeaders, created.upload.url]);

    const uploadPeakRssMiB = phasePeaks ? peaks() : null;

    const confirmStarted = process.hrtime.bigint();
    const confirmed = await fetchJson(`${gatewayUrl}/api/v1/catalog/assets/${created.assetId}/confirm`, { method: 'POST', headers: auth });
    const confirmSeconds = Number(process.hrtime.bigint() - confirmStarted) / 1e9;
    if (confirmed.status !== 'ONLINE') throw new Error(`confirm: ${JSON.stringify(confirmed)}`);

    if (phasePeaks) resetPeaks();
    const downloaded = join(work, 'downloaded.wav');
    const downloadOnce = (): Promise<number> =>
      timed('curl', [
        '-sS',
        '-f',
        '-o',
        downloaded,
        '-H',
        `authorization: ${auth.authorization}`,
        `${gatewayUrl}/api/v1/catalog/assets/${created.assetId}/download`,
      ]);
    const downloadSeconds = await downloadOnce();
    const downloadPeakRssMiB = phasePeaks ? peaks() : null;
    const downloadedSha = await sha256(downloaded);
    if (downloadedSha !== sourceSha) throw new Error('the downloaded bytes differ from the uploaded ones');
    rmSync(downloaded);

    // The same download with the stored file out of the page cache, as for a file uploaded long
    // ago (only where this process may drop the kernel's caches, e.g. as root; else null).
    let coldDownloadSeconds: number | null = null;
    let coldDownloadPeakRssMiB: { gateway: number; asset: number } | null = null;
    if (await timed('sync', []).then(() => dropPageCache())) {
      if (phasePeaks) resetPeaks();
      coldDownloadSeconds = await downloadOnce();
      coldDownloadPeakRssMiB = phasePeaks ? peaks() : null;
      if ((await sha256(downloaded)) !== sourceSha) throw new Error('the cold download differs from the uploaded bytes');
      rmSync(downloaded);
    }

    const cp = mbPerSecond(size, cpSeconds);
    const upload = mbPerSecond(size, uploadSeconds);
    const download = mbPerSecond(size, downloadSeconds);
    // The transfer's peak: the higher of the upload's and the download's (each measured on its own
    // when the kernel lets the peak be reset), or the whole run's.
    const phases = [uploadPeakRssMiB, downloadPeakRssMiB, coldDownloadPeakRssMiB].filter((p) => p !== null);
    const peakRssMiB =
      uploadPeakRssMiB && downloadPeakRssMiB
        ? { gateway: Math.max(...phases.map((p) => p.gateway)), asset: Math.max(...phases.map((p) => p.asset)) }
        : peaks();
    const results = {
      benchmark: 'upload',
      date: new Date().toISOString(),
      machine: machine(),
      file: { bytes: size, contentType: 'audio/wav', sha256Verified: true },
      seconds: {
        cp: cpSeconds,
        cpWithFsync: cpSyncSeconds,
        upload: uploadSeconds,
        confirm: confirmSeconds,
        download: downloadSeconds,
        coldDownload: coldDownloadSeconds,
      },
      mbPerSecond: {
        cp,
        cpWithFsync: mbPerSecond(size, cpSyncSeconds),
        upload,
        download,
        coldDownload: coldDownloadSeconds === null ? null : mbPerSecond(size, coldDownloadSeconds),
      },
      ratioToCp: { upload: Math.round((upload / cp) * 1000) / 1000, download: Math.round((download / cp) * 1000) / 1000 },
      peakRssMiB,
      peakRssMiBByPhase: {
        startup: startupPeakRssMiB,
        upload: uploadPeakRssMiB,
        download: downloadPeakRssMiB,
        coldDownload: coldDownloadPeakRssMiB,
      },
      idleRssMiBBeforeTransfer: idleRssMiB,
      targets: { ratioToCpAtLeast: 0.5, peakRssBelowMiB: 150 },
      met: {
        upload: upload / cp >= 0.5,
        download: download / cp >= 0.5,
        rss: peakRssMiB.gateway < 150 && peakRssMiB.asset < 150,
      },
    };
    mkdirSync(join(repoRoot, 'bench', 'results'), { recursive: true });
    writeFileSync(join(repoRoot, 'bench', 'results', 'upload.json'), `${JSON.stringify(results, null, 2)}\n`);
    console.table({
      cp: { 'MB/s': cp, seconds: cpSeconds },
      'cp + fsync (dd)': { 'MB/s': results.mbPerSecond.cpWithFsync, seconds: cpSyncSeconds },
      'upload via gateway': { 'MB/s': upload, seconds: uploadSeconds },
      'download via gateway': { 'MB/s': download, seconds: downloadSeconds },
    });
    console.log(
      JSON.stringify({
        ratioToCp: results.ratioToCp,
        peakRssMiB,
        byPhase: results.peakRssMiBByPhase,
        idleRssMiB,
        confirmSeconds,
        met: results.met,
      }),
    );
  } finally {
    for (const child of processes.reverse()) await child.stop();
    await database.drop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
