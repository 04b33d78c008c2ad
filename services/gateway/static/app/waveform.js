// @ts-check
/* The waveform of an analysis result (BBC audiowaveform JSON, version 2) drawn on a canvas, with
   cue-point markers and the playhead. */

/**
 * @typedef {{ channels: number, sample_rate: number, samples_per_pixel: number, bits: number, length: number, data: number[] }} Waveform
 * @typedef {{ positionMs: number, label: string }} CueMark
 */

/** Length of the audio the waveform covers, in ms. @param {Waveform} waveform */
export function waveformDurationMs(waveform) {
  return (waveform.length * waveform.samples_per_pixel * 1000) / waveform.sample_rate;
}

/**
 * The lowest and highest value of points [from, to) over every channel, scaled to -1..1.
 * @param {Waveform} waveform
 * @param {number} from
 * @param {number} to
 */
function range(waveform, from, to) {
  const scale = 2 ** (waveform.bits - 1);
  const stride = waveform.channels * 2;
  let low = 0;
  let high = 0;
  for (let point = from; point < Math.max(to, from + 1) && point < waveform.length; point++) {
    for (let channel = 0; channel < waveform.channels; channel++) {
      const at = point * stride + channel * 2;
      low = Math.min(low, (waveform.data[at] ?? 0) / scale);
      high = Math.max(high, (waveform.data[at + 1] ?? 0) / scale);
    }
  }
  return { low, high };
}

/** @param {HTMLCanvasElement} canvas */
function sized(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d canvas');
  return { context, width, height, ratio };
}

/**
 * Draws the waveform, its cue-point markers and (when given) the playhead at `playheadMs`.
 * @param {HTMLCanvasElement} canvas
 * @param {Waveform} waveform
 * @param {CueMark[]} marks
 * @param {number | null} playheadMs
 */
export function drawWaveform(canvas, waveform, marks, playheadMs) {
  const { context, width, height, ratio } = sized(canvas);
  const style = getComputedStyle(canvas);
  const middle = height / 2;
  context.clearRect(0, 0, width, height);
  context.fillStyle = style.getPropertyValue('--wave').trim() || '#2b6cb0';
  for (let x = 0; x < width; x++) {
    const { low, high } = range(waveform, Math.floor((x * waveform.length) / width), Math.floor(((x + 1) * waveform.length) / width));
    const top = middle - high * middle;
    context.fillRect(x, top, 1, Math.max(1, middle - low * middle - top));
  }
  const durationMs = waveformDurationMs(waveform) || 1;
  const at = (/** @type {number} */ ms) => Math.min(width - Math.max(1, ratio), Math.round((ms / durationMs) * width));
  drawMarks(
    context,
    marks.map((mark) => ({ x: at(mark.positionMs), label: mark.label })),
    { width, height, ratio, style },
  );
  if (playheadMs !== null) {
    context.fillStyle = style.getPropertyValue('--playhead').trim() || '#1a202c';
    context.fillRect(at(playheadMs), 0, 2 * ratio, height);
  }
}

/**
 * The markers as lines, their labels in the first of three rows where they do not run into the
 * label before them.
 * @param {CanvasRenderingContext2D} context
 * @param {{ x: number, label: string }[]} marks
 * @param {{ width: number, height: number, ratio: number, style: CSSStyleDeclaration }} frame
 */
function drawMarks(context, marks, { width, height, ratio, style }) {
  context.font = `${11 * ratio}px system-ui, sans-serif`;
  context.textBaseline = 'top';
  context.fillStyle = style.getPropertyValue('--marker').trim() || '#c05621';
  const rowEnds = [-Infinity, -Infinity, -Infinity];
  for (const { x, label } of [...marks].sort((a, b) => a.x - b.x)) {
    context.fillRect(x, 0, Math.max(1, ratio), height);
    const textWidth = context.measureText(label).width;
    const left = Math.max(0, Math.min(x + 3 * ratio, width - textWidth));
    const row = Math.max(
      0,
      rowEnds.findIndex((end) => end < left),
    );
    rowEnds[row] = left + textWidth + 4 * ratio;
    context.fillText(label, left, (2 + row * 13) * ratio);
  }
}
