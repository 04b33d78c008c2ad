import { writePlaylist } from './playlist.js';

/** A song on the playlist: its line and its file. */
export interface Held {
  versionId: string;
  path: string;
  line: string;
}

/**
 * What the connector holds: the assigned songs in assignment order, the line and file of each
 * synced one, and why the others failed. `write` puts the lines of the synced ones, in order,
 * into the playlist file.
 */
export class PlaylistState {
  order: string[] = [];
  readonly held = new Map<string, Held>();
  readonly failed = new Map<string, string>();

  constructor(private readonly path: string) {}

  async write(): Promise<void> {
    const lines = this.order.flatMap((entityId) => {
      const song = this.held.get(entityId);
      return song ? [song.line] : [];
    });
    await writePlaylist(this.path, lines);
  }
}
