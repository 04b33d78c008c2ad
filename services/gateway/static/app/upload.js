// @ts-check
/* Upload of a new song (rule 2 of part 4): the entity, its version with an upload source, the bytes
   PUT to the signed upload target with progress, then the confirmation. */
import { call, problem } from './api.js';
import { field, h } from './dom.js';

/** Audio types the asset service accepts, by file extension (when the browser names none). */
const TYPE_BY_EXTENSION = /** @type {Record<string, string>} */ ({
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  aac: 'audio/aac',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  opus: 'audio/opus',
  aif: 'audio/aiff',
  aiff: 'audio/aiff',
  webm: 'audio/webm',
});

/** @param {File} file */
function contentType(file) {
  if (file.type.startsWith('audio/')) return file.type;
  return TYPE_BY_EXTENSION[file.name.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

/** `sha256:<hex>` of the file where the browser offers digests (secure contexts), else null. @param {File} file */
async function checksum(file) {
  if (!crypto.subtle) return null;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  return `sha256:${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * PUTs the file to the signed target with exactly its headers, reporting progress (0..1).
 * @param {{ url: string, method: string, headers: Record<string, string> }} target
 * @param {File} file
 * @param {(fraction: number) => void} progress
 * @returns {Promise<void>}
 */
function put(target, file, progress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(target.method, target.url);
    // The browser sends the file's length itself (Content-Length is not a header a page may set).
    for (const [name, value] of Object.entries(target.headers))
      if (name.toLowerCase() !== 'content-length') request.setRequestHeader(name, value);
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) progress(event.loaded / event.total);
    });
    request.addEventListener('load', () =>
      request.status >= 200 && request.status < 300 ? resolve() : reject(new Error(`the upload was refused (${request.status})`)),
    );
    request.addEventListener('error', () => reject(new Error('the upload failed (network)')));
    request.addEventListener('timeout', () => reject(new Error('the upload timed out')));
    request.send(file);
  });
}

/**
 * The three steps and the analyses the form asks for; `step` tells the user where it is.
 * @param {{ title: string, artist: string, file: File, analyse: boolean }} song
 * @param {(text: string) => void} step
 * @param {(fraction: number) => void} progress
 */
async function uploadSong(song, step, progress) {
  step('Creating the song…');
  const entity = /** @type {{ id: string }} */ (
    await call('POST', '/api/v1/catalog/entities', {
      body: { type: 'song', title: song.title, ...(song.artist ? { artist: song.artist } : {}) },
      idempotent: true,
    })
  );
  const sum = await checksum(song.file);
  const upload = { filename: song.file.name, contentType: contentType(song.file), size: song.file.size, ...(sum ? { checksum: sum } : {}) };
  /** @typedef {{ id: string, asset: { id: string }, upload: { url: string, method: string, headers: Record<string, string> } }} CreatedVersion */
  const version = /** @type {CreatedVersion} */ (
    await call('POST', `/api/v1/catalog/entities/${entity.id}/versions`, {
      body: { label: 'Original', versionType: 'full_length', source: { upload } },
      idempotent: true,
    })
  );
  step('Uploading…');
  await put(version.upload, song.file, progress);
  step('Confirming the upload…');
  await call('POST', `/api/v1/catalog/assets/${version.asset.id}/confirm`);
  if (song.analyse) {
    step('Requesting the waveform and cue points…');
    for (const type of ['waveform', 'cue_points'])
      await call('POST', '/api/v1/catalog/analyses', { body: { type, source: { versionId: version.id } }, idempotent: true });
  }
  return entity.id;
}

/** @param {HTMLElement} main */
export function renderUpload(main) {
  const title = h('input', { id: 'upload-title', name: 'title', type: 'text', required: true, maxlength: '500' });
  const artist = h('input', { id: 'upload-artist', name: 'artist', type: 'text', maxlength: '500' });
  const file = h('input', { id: 'upload-file', name: 'file', type: 'file', accept: 'audio/*', required: true });
  const analyse = h('input', { id: 'upload-analyse', name: 'analyse', type: 'checkbox', checked: true });
  const progress = h('progress', { id: 'upload-progress', max: '100', value: '0', 'aria-labelledby': 'upload-progress-label' });
  const status = h('p', { id: 'upload-status', role: 'status' });
  const submit = h('button', { type: 'submit' }, 'Upload');
  const form = h(
    'form',
    { 'aria-label': 'Upload a song' },
    field('Title', title),
    field('Artist', artist),
    field('Audio file', file, 'MP3, WAV, FLAC, AAC, Ogg, Opus or AIFF.'),
    h('div', { class: 'field check' }, analyse, h('label', { for: analyse.id }, 'Analyse the waveform and cue points (uses credits)')),
    submit,
    h('div', { class: 'field' }, h('span', { id: 'upload-progress-label' }, 'Upload progress'), progress),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const chosen = file.files?.[0];
    if (!title.value.trim() || !chosen) {
      status.textContent = 'A title and an audio file are needed.';
      (title.value.trim() ? file : title).focus();
      return;
    }
    submit.disabled = true;
    progress.value = 0;
    const song = { title: title.value.trim(), artist: artist.value.trim(), file: chosen, analyse: analyse.checked };
    try {
      const entityId = await uploadSong(
        song,
        (text) => (status.textContent = text),
        (f) => (progress.value = Math.round(f * 100)),
      );
      progress.value = 100;
      status.replaceChildren('Uploaded. ', h('a', { href: `#/tracks/${entityId}`, id: 'uploaded-track' }, `Open ${song.title}`));
    } catch (error) {
      status.textContent = `Upload failed: ${problem(error)}`;
    } finally {
      submit.disabled = false;
    }
  });
  main.replaceChildren(h('h2', { tabindex: '-1' }, 'Upload a song'), form);
}
