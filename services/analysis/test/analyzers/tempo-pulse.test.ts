import { seededRandom } from '@catalog/testing';
import { TempoAnalyzer } from '../../src/analyzers/tempo/tempo-analyzer.js';

const RATE = 11_025;
/** Chords a beat as an organ or a string section plays them: no attack to speak of, legato, no drums. */
const CHORDS = [
  [48, 55, 64, 72],
  [53, 57, 65, 72],
  [55, 59, 67, 74],
  [52, 57, 64, 72],
  [50, 57, 65, 74],
  [55, 59, 62, 71],
  [48, 55, 64, 67],
  [53, 60, 65, 69],
];
const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);

/**
 * `seconds` of four-voice chords at `bpm`, one a beat, each voice three harmonics: each chord
 * fades in over 100 ms as the one before fades out, the sum at one level throughout, so that only
 * the pitches change (as a string section or an organ plays legato).
 */
function sustainedChords(bpm: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const beat = (60 / bpm) * RATE;
  const crossfade = 0.1 * RATE;
  const voices = (chord: number[], i: number) =>
    chord.reduce((sum, note) => sum + [1, 2, 3].reduce((s, h) => s + (0.05 / h) * Math.sin((2 * Math.PI * hz(note) * h * i) / RATE), 0), 0);
  for (let i = 0; i < out.length; i++) {
    const index = Math.floor(i / beat);
    const share = index === 0 ? 1 : Math.min(1, (i - index * beat) / crossfade);
    const current = voices(CHORDS[index % CHORDS.length]!, i);
    out[i] = share < 1 ? Math.sqrt(share) * current + Math.sqrt(1 - share) * voices(CHORDS[(index - 1) % CHORDS.length]!, i) : current;
  }
  return out;
}

/**
 * `seconds` of a drumless pop ballad at `bpm`: a held pad chord a bar (slow attack, no onset to
 * speak of) over a bass plucked on the first and third beats and held; nothing else marks the beat.
 */
function ballad(bpm: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const beat = (60 / bpm) * RATE;
  const bassAt = [0, 2];
  for (let i = 0; i < out.length; i++) {
    const bar = Math.floor(i / (4 * beat));
    const inBar = i - bar * 4 * beat;
    const chord = CHORDS[(2 * bar) % CHORDS.length]!;
    const swell = Math.min(1, inBar / (0.25 * RATE));
    const pad = chord.reduce((sum, note) => sum + 0.04 * Math.sin((2 * Math.PI * hz(note + 12) * i) / RATE), 0);
    const pluck = bassAt.filter((at) => inBar >= at * beat).at(-1)!;
    const since = (inBar - pluck * beat) / RATE;
    const root = chord[0]! - 12;
    const bass = 0.3 * Math.exp(-since * 1.5) * [1, 2].reduce((s, h) => s + Math.sin(2 * Math.PI * hz(root) * h * since) / h, 0);
    out[i] = swell * pad + bass;
  }
  return out;
}

/**
 * `seconds` of chords a beat at `bpm` as a piano plays a chorale: every voice struck on the beat and
 * left to decay, and on the second eighth of each beat one voice (each in turn) struck again a step
 * up, as a passing note moves: onsets every eighth, the harmony changing every beat.
 */
function chordsInEighths(bpm: number, seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const beat = (60 / bpm) * RATE;
  const struck = (note: number, since: number) =>
    since < 0 ? 0 : Math.exp(-3 * since) * [1, 2, 3].reduce((s, h) => s + (0.06 / h) * Math.sin(2 * Math.PI * hz(note) * h * since), 0);
  for (let i = 0; i < out.length; i++) {
    const index = Math.floor(i / beat);
    const sinceBeat = (i - index * beat) / RATE;
    const sinceEighth = sinceBeat - beat / 2 / RATE;
    const moving = index % 4;
    out[i] = CHORDS[index % CHORDS.length]!.reduce(
      (sum, note, voice) => sum + (voice === moving && sinceEighth >= 0 ? struck(note + 2, sinceEighth) : struck(note, sinceBeat)),
      0,
    );
  }
  return out;
}

function tempoOf(samples: Float32Array) {
  const analyzer = new TempoAnalyzer(RATE);
  // In uneven chunks, as the decoder writes.
  for (let at = 0; at < samples.length; at += 4_000) analyzer.write(samples.subarray(at, at + 4_000), Math.min(4_000, samples.length - at));
  return analyzer.result();
}

test.each([52, 72, 96])('sustained chords without drums or attacks at %d BPM get that tempo and beats', (bpm) => {
  const tempo = tempoOf(sustainedChords(bpm, 40));
  expect(tempo.bpm).not.toBeNull();
  expect(Math.abs(tempo.bpm! - bpm)).toBeLessThanOrEqual(0.04 * bpm);
  expect(tempo.confidence).toBeGreaterThan(0.05);
  expect(tempo.beatsMs.length).toBeGreaterThan(0.8 * ((40 * bpm) / 60));
});

test.each([64, 76])(
  'a drumless ballad at %d BPM, pads held a bar over a bass held two beats, gets that tempo, not half or twice it',
  (bpm) => {
    const tempo = tempoOf(ballad(bpm, 40));
    expect(tempo.bpm).not.toBeNull();
    expect(Math.abs(tempo.bpm! - bpm)).toBeLessThanOrEqual(0.04 * bpm);
    expect(tempo.confidence).toBeGreaterThan(0.05);
  },
);

test.each([63, 80])('chords a beat struck with a passing note on every second eighth at %d BPM get that tempo, not twice it', (bpm) => {
  const tempo = tempoOf(chordsInEighths(bpm, 40));
  expect(tempo.bpm).not.toBeNull();
  expect(Math.abs(tempo.bpm! - bpm)).toBeLessThanOrEqual(0.04 * bpm);
});

test('silence has no tempo, a confidence of 0, and says it is silence', () => {
  expect(tempoOf(new Float32Array(20 * RATE))).toEqual({
    bpm: null,
    confidence: 0,
    noBpmReason: 'silence',
    firstBeatMs: null,
    firstDownbeatMs: null,
    beatsMs: [],
  });
});

test('noise has no tempo: no beats, and a confidence that says how little pulse there is', () => {
  const random = seededRandom(7);
  const noise = Float32Array.from({ length: 30 * RATE }, () => 0.3 * (random() * 2 - 1));
  const tempo = tempoOf(noise);
  expect(tempo.bpm).toBeNull();
  expect(tempo.noBpmReason).toBe('no_steady_pulse');
  expect(tempo.beatsMs).toEqual([]);
  expect(tempo.confidence).toBeGreaterThan(0);
  expect(tempo.confidence).toBeLessThan(0.05);
});

/**
 * `seconds` of a voice-like intro: noise bursts of syllables 0.12–0.4 s apart, as uneven as speech,
 * peaking as high as the chords that follow but with attacks they do not have: their onset strength
 * outweighs the chords' (a presenter talking over the start of a soft piece). Before 0186 the
 * intro's bursts set the tempo (113 BPM for these chords at 72).
 */
function loudIntro(seconds: number): Float32Array {
  const random = seededRandom(11);
  const out = new Float32Array(Math.round(seconds * RATE));
  let syllable = 0;
  let next = 0;
  for (let i = 0; i < out.length; i++) {
    if (i >= next) {
      syllable = i;
      next = i + Math.round((0.12 + 0.28 * random()) * RATE);
    }
    out[i] = Math.exp(((syllable - i) / RATE) * 12) * 0.4 * (random() * 2 - 1);
  }
  return out;
}

test('a loud voice over the first seconds of soft sustained chords does not set their tempo (decision 0186)', () => {
  const intro = loudIntro(6);
  const chords = sustainedChords(72, 34);
  const piece = new Float32Array(intro.length + chords.length);
  piece.set(intro);
  piece.set(chords, intro.length);
  const tempo = tempoOf(piece);
  expect(tempo.bpm).not.toBeNull();
  expect(Math.abs(tempo.bpm! - 72)).toBeLessThanOrEqual(0.04 * 72);
});
