export { DRUM_CHANNEL, medleyFile, midiFile, songSeconds, type ChannelSettings, type MidiNote, type MidiSong } from './midi.js';
export { cadence, demoSong, drumPattern, type Mode } from './patterns.js';
export { renderMedley, renderSong, SOUND_FONTS, type RenderOptions, type SoundFontName } from './render.js';
export { generatedSong, randomSongSpec, seededRandom, type ChordQuality, type MinorForm, type SongSpec } from './generated.js';
