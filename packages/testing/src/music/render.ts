import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { midiFile, type MidiSong } from './midi.js';

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
}

/**
 * Renders `song` to a 16-bit stereo WAV file at `path` with fluidsynth and the General MIDI sound
 * font (fast render: no audio device).
 */
export async function renderSong(song: MidiSong, path: string, options: RenderOptions = {}): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-midi-'));
  try {
    const midi = join(dir, 'song.mid');
    await writeFile(midi, midiFile(song));
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
        SOUNDFONT,
        midi,
      ],
      { timeout: RENDER_TIMEOUT_MS },
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
