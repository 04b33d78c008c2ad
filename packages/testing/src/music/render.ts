import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { medleyFile, midiFile, songSeconds, type MidiSong } from './midi.js';

const run = promisify(execFile);

/** Debian's fluid-soundfont-gm (scripts/lib/infra.sh ensure_audio_tools installs it); SOUNDFONT overrides. */
const SOUNDFONT = process.env.SOUNDFONT ?? '/usr/share/sounds/sf2/FluidR3_GM.sf2';

/** Longest a render may take (a 5-minute song takes a few seconds). */
const RENDER_TIMEOUT_MS = 180_000;

export interface RenderOptions {
  sampleRate?: number;
  /** fluidsynth's master gain (default 0.6). */
  gain?: number;
  /** Reverb and chorus (default off: dry, sharp onsets). */
  effects?: boolean;
  /** Sound font file (default SOUNDFONT, else Debian's FluidR3_GM.sf2); see SOUND_FONTS. */
  soundfont?: string;
  /** Longest the synthesizer may run (default 180 s). */
  timeoutMs?: number;
}

/**
 * The General MIDI sound fonts of Debian's packages (fluid-soundfont-gm, musescore-general-soundfont,
 * timgm6mb-soundfont, csound-soundfont, opl3-soundfont: an FM chip's sound, not samples).
 */
export const SOUND_FONTS = {
  fluidr3: '/usr/share/sounds/sf2/FluidR3_GM.sf2',
  csound: '/usr/share/sounds/sf2/sf_GMbank.sf2',
  opl3: '/usr/share/sounds/sf2/OPL-3_FM_128M.sf2',
  musescore: '/usr/share/sounds/sf3/MuseScore_General.sf3',
  timgm6mb: '/usr/share/sounds/sf2/TimGM6mb.sf2',
} as const;
export type SoundFontName = keyof typeof SOUND_FONTS;

/**
 * Renders `song` to a 16-bit stereo WAV file at `path` with fluidsynth and the General MIDI sound
 * font (or `options.soundfont`; fast render: no audio device).
 */
export async function renderSong(song: MidiSong, path: string, options: RenderOptions = {}): Promise<void> {
  await renderMidi(midiFile(song), path, options);
}

/**
 * Renders `songs` one after the other, `gapSeconds` apart, into one WAV file at `path` (one
 * synthesizer run: a sound font that takes seconds to load is loaded once); where each song starts
 * and how long it lasts (seconds), to cut it out.
 */
export async function renderMedley(
  songs: MidiSong[],
  path: string,
  options: RenderOptions & { gapSeconds?: number } = {},
): Promise<Array<{ startSeconds: number; seconds: number }>> {
  const gap = options.gapSeconds ?? 2;
  const { midi, startSeconds } = medleyFile(songs, gap);
  await renderMidi(midi, path, options);
  return songs.map((song, i) => ({ startSeconds: startSeconds[i]!, seconds: songSeconds(song) + gap / 2 }));
}

async function renderMidi(midiBytes: Uint8Array, path: string, options: RenderOptions): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-midi-'));
  try {
    const midi = join(dir, 'song.mid');
    await writeFile(midi, midiBytes);
    const effects = options.effects ? 'yes' : 'no';
    await run(
      'fluidsynth',
      [
        '-n',
        '-i',
        '-q',
        '-R',
        effects,
        '-C',
        effects,
        '-g',
        String(options.gain ?? 0.6),
        '-r',
        String(options.sampleRate ?? 44_100),
        '-O',
        's16',
        '-T',
        'wav',
        '-F',
        path,
        options.soundfont ?? SOUNDFONT,
        midi,
      ],
      { timeout: options.timeoutMs ?? RENDER_TIMEOUT_MS },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
