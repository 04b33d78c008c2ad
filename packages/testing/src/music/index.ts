export { midiFile, type MidiNote, type MidiSong } from './midi.js';
export { cadence, demoSong, drumPattern, type Mode } from './patterns.js';
export { renderSong, type RenderOptions } from './render.js';
