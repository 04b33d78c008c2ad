/** The latest `capacity` ids seen, oldest first: a bounded window for deduplication on id (rule 7 of part 6). */
export class RecentIds {
  private readonly ids: Set<string>;

  constructor(
    initial: readonly string[],
    private readonly capacity: number,
  ) {
    this.ids = new Set(initial.slice(-capacity));
  }

  /** Adds `id`; false when it was already in the window (a repeat delivery). */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value as string);
    return true;
  }

  list(): string[] {
    return [...this.ids];
  }
}
