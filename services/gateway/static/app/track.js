// @ts-check
/* A track: its facts, the waveform of its analysis with the cue points on it, playback of its file. */
import { call, download, problem } from './api.js';
import { announce, h, time } from './dom.js';
import { drawWaveform } from './waveform.js';

/**
 * What the page reads of the library's track and of the analyses.
 * @typedef {import('./waveform.js').Waveform} Waveform
 * @typedef {{ type: string, positionMs: number, label?: string }} Marker
 * @typedef {Record<string, number | null>} CuePoints the cue_points result, or the library's summary of it
 * @typedef {{ label: string, versionType: string, markers: Marker[], downloadPath: string }} TrackVersion
 * @typedef {{ available: true, resultPath: string } | { available: false, resultPath: null }} WaveformFacts
 * @typedef {{ cuePoints: CuePoints | null, waveform: WaveformFacts }} TrackAnalysis
 * @typedef {import('./search.js').TrackSummary & { versions: { AUDIO: TrackVersion }, analysis: TrackAnalysis }} Track
 * @typedef {{ jobId: string, type: string, status: string, error: { message: string } | null, result: Waveform | CuePoints | null }} AnalysisJob
 * @typedef {{ analyses: Array<{ jobId: string, type: string, status: string }> }} AnalysisPage
 */

/** Names of the cue points, by marker type and by field of the cue_points result. */
const CUE_NAMES = /** @type {Record<string, string>} */ ({
  cue_in: 'Cue in',
  intro_end: 'Intro end',
  hook_start: 'Hook start',
  hook_end: 'Hook end',
  outro_start: 'Outro start',
  segue: 'Segue',
  cue_out: 'Cue out',
  cueInMs: 'Cue in',
  introEndMs: 'Intro end',
  outroStartMs: 'Outro start',
  nextTrackStartMs: 'Segue',
  cueOutMs: 'Cue out',
});

/**
 * The cue points to mark: the version's markers when it has any, else the cue_points analysis.
 * @param {Track} track
 * @param {CuePoints | null} cuePoints
 * @returns {import('./waveform.js').CueMark[]}
 */
export function cueMarks(track, cuePoints) {
  const markers = track.versions?.AUDIO?.markers ?? [];
  if (markers.length > 0)
    return markers
      .map((m) => ({ positionMs: m.positionMs, label: m.label ?? CUE_NAMES[m.type] ?? m.type }))
      .sort((a, b) => a.positionMs - b.positionMs);
  return Object.entries(cuePoints ?? {})
    .filter(([name, ms]) => CUE_NAMES[name] && typeof ms === 'number')
    .map(([name, ms]) => ({ positionMs: /** @type {number} */ (ms), label: CUE_NAMES[name] ?? name }))
    .sort((a, b) => a.positionMs - b.positionMs);
}

/** @param {number} ms */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits (at most two minutes) for an analysis job to finish; its result.
 * @param {string} jobId
 * @returns {Promise<AnalysisJob['result']>}
 */
async function finished(jobId) {
  let job = /** @type {AnalysisJob} */ (await call('GET', `/api/v1/catalog/analyses/${jobId}`));
  for (let attempt = 0; attempt < 120 && job.status !== 'SUCCEEDED' && job.status !== 'FAILED'; attempt++) {
    await pause(1000);
    job = /** @type {AnalysisJob} */ (await call('GET', `/api/v1/catalog/analyses/${jobId}`));
  }
  if (job.status !== 'SUCCEEDED') throw new Error(`the ${job.type} analysis did not succeed (${job.error?.message ?? job.status})`);
  return job.result;
}

/**
 * The newest job of each of `types` for the entity that has not failed (queued, running, or done
 * but not yet in the library): an upload asks for them, the page waits for those.
 * @param {string} entityId
 * @param {string[]} types
 * @returns {Promise<Record<string, string>>} job id by type
 */
async function jobsUnderWay(entityId, types) {
  const page = /** @type {AnalysisPage} */ (await call('GET', `/api/v1/catalog/analyses?entityId=${entityId}&limit=50`));
  /** @type {Record<string, string>} */
  const jobs = {};
  for (const job of page.analyses) if (types.includes(job.type) && !jobs[job.type] && job.status !== 'FAILED') jobs[job.type] = job.jobId;
  return jobs;
}

/** @param {Track} track */
function facts(track) {
  const audio = track.versions.AUDIO;
  const entries = [
    ['Artist', track.artist ?? '–'],
    ['Type', track.entityType],
    ['Version', `${audio.label} (${audio.versionType})`],
    ['Duration', time(track.durationMs)],
    ['BPM', track.bpm === null ? '–' : String(track.bpm)],
    ['Key', track.key ? `${track.key}${track.camelot ? ` (${track.camelot})` : ''}` : '–'],
    ['Loudness', track.integratedLufs === null ? '–' : `${track.integratedLufs.toFixed(1)} LUFS`],
  ];
  return h('dl', { class: 'facts' }, ...entries.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value)]));
}

/**
 * The player: a Play button that downloads the file once (the API's download, through the session) and
 * plays it from memory; the audio element's own controls pause and seek.
 * @param {Track} track
 */
function player(track) {
  const audio = h('audio', { id: 'player', controls: true, preload: 'none', 'aria-label': `Playback of ${track.title}` });
  const play = h('button', { type: 'button', id: 'play' }, 'Play');
  play.addEventListener('click', async () => {
    try {
      if (!audio.src) {
        play.disabled = true;
        announce('Loading the audio…');
        audio.src = URL.createObjectURL(await download(track.versions.AUDIO.downloadPath));
      }
      await audio.play();
      announce(`Playing ${track.title}`);
    } catch (error) {
      announce(`Playback failed: ${problem(error)}`);
    } finally {
      play.disabled = false;
    }
  });
  return { audio, play };
}

/**
 * The waveform figure: the canvas (an image to assistive technology, described by its cue points)
 * and the cue points as buttons that seek the player.
 * @param {Track} track
 * @param {HTMLAudioElement} audio
 */
function waveformFigure(track, audio) {
  const canvas = h('canvas', { id: 'waveform', role: 'img', 'aria-label': `Waveform of ${track.title}` });
  const marks = h('ul', { id: 'cue-points', 'aria-label': 'Cue points' });
  const note = h('p', { id: 'waveform-note' });
  const figure = h('figure', { class: 'waveform' }, canvas, h('figcaption', {}, 'Waveform and cue points'), note, marks);
  /** @type {{ waveform: Waveform | null, marks: import('./waveform.js').CueMark[] }} */
  const state = { waveform: null, marks: [] };
  const redraw = () => {
    if (state.waveform) drawWaveform(canvas, state.waveform, state.marks, audio.src ? audio.currentTime * 1000 : null);
  };
  const show = (/** @type {Waveform | null} */ waveform, /** @type {import('./waveform.js').CueMark[]} */ cues) => {
    state.waveform = waveform ?? state.waveform;
    state.marks = cues;
    const seek = (/** @type {number} */ ms) => () => {
      if (audio.src) audio.currentTime = ms / 1000;
      announce(`Position ${time(ms)}`);
    };
    marks.replaceChildren(
      ...cues.map((mark) =>
        h('li', {}, h('button', { type: 'button', onclick: seek(mark.positionMs) }, `${mark.label} ${time(mark.positionMs)}`)),
      ),
    );
    const described = cues.map((mark) => `${mark.label} ${time(mark.positionMs)}`).join(', ');
    canvas.setAttribute('aria-label', `Waveform of ${track.title}${described ? `; cue points: ${described}` : ''}`);
    canvas.dataset.drawn = state.waveform ? 'true' : 'false';
    redraw();
  };
  audio.addEventListener('timeupdate', redraw);
  window.addEventListener('resize', redraw);
  return { figure, note, show };
}

/**
 * Loads what the library's facts point to (the waveform result), or offers to analyse what is missing.
 * @param {Track} track
 * @param {ReturnType<typeof waveformFigure>} view
 */
async function fillWaveform(track, view) {
  const analysis = track.analysis;
  const cuePoints = analysis.cuePoints;
  const waveform = analysis.waveform.available
    ? /** @type {{ result: Waveform }} */ (await call('GET', analysis.waveform.resultPath)).result
    : null;
  view.show(waveform, cueMarks(track, cuePoints));
  if (waveform && (cuePoints || track.versions.AUDIO.markers.length > 0)) {
    view.note.textContent = '';
    return;
  }
  const missing = [...(waveform ? [] : ['waveform']), ...(cuePoints ? [] : ['cue_points'])];
  const known = { waveform, cue_points: cuePoints };
  /** @param {Record<string, string>} jobs job id by type */
  const complete = async (jobs) => {
    const results = Object.fromEntries(await Promise.all(Object.entries(jobs).map(async ([type, id]) => [type, await finished(id)])));
    Object.assign(known, results);
    view.show(known.waveform, cueMarks(track, known.cue_points));
    view.note.textContent = '';
    announce('Analysed.');
  };
  const underWay = await jobsUnderWay(track.entityId, missing);
  if (Object.keys(underWay).length === missing.length) {
    view.note.textContent = `Analysing: ${missing.join(' and ')}…`;
    return complete(underWay);
  }
  view.note.textContent = `Not analysed yet: ${missing.join(' and ')}.`;
  const button = h('button', { type: 'button', id: 'analyse' }, 'Analyse (uses credits)');
  button.addEventListener('click', async () => {
    button.disabled = true;
    announce('Analysing…');
    try {
      const requested = await Promise.all(
        missing.map(async (type) => [
          type,
          /** @type {AnalysisJob} */ (await call('POST', '/api/v1/catalog/analyses', analysisOf(track.entityId, type))).jobId,
        ]),
      );
      await complete(Object.fromEntries(requested));
    } catch (error) {
      view.note.textContent = problem(error);
      announce(view.note.textContent);
      button.disabled = false;
    }
  });
  view.note.append(' ', button);
}

/** @param {string} entityId @param {string} type */
const analysisOf = (entityId, type) => ({ body: { type, source: { entityId } }, idempotent: true });

/**
 * Reads the track, retrying while it is not in the library yet (a new upload takes a moment).
 * @param {string} entityId
 * @param {(text: string) => void} wait
 * @returns {Promise<Track>}
 */
async function readTrack(entityId, wait) {
  for (let attempt = 0; ; attempt++) {
    try {
      return /** @type {Track} */ (await call('GET', `/api/v1/library/tracks/${entityId}`));
    } catch (error) {
      if (!(/** @type {{ status?: unknown }} */ (error).status === 404) || attempt >= 30) throw error;
      wait('This track is not in the library yet (its file may still be processed); checking again…');
      await pause(2000);
    }
  }
}

/**
 * The track view.
 * @param {HTMLElement} main
 * @param {string} entityId
 * @param {boolean} [focus] move focus to the heading (a navigation within the page)
 */
export async function renderTrack(main, entityId, focus = true) {
  const heading = h('h2', { tabindex: '-1' }, 'Track');
  const message = h('p', { id: 'track-message' });
  main.replaceChildren(h('p', {}, h('a', { href: '#/' }, 'Back to the library')), heading, message);
  if (focus) heading.focus();
  try {
    const track = await readTrack(entityId, (text) => (message.textContent = text));
    heading.textContent = track.title;
    document.title = `${track.title} – Catalog library`;
    message.textContent = '';
    const { audio, play } = player(track);
    const view = waveformFigure(track, audio);
    main.append(facts(track), view.figure, h('section', { 'aria-label': 'Playback' }, play, audio));
    await fillWaveform(track, view);
  } catch (error) {
    message.textContent = problem(error);
    announce(message.textContent);
  }
}
