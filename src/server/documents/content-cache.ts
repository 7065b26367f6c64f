/**
 * What the store keeps of contents in memory: 32 MB covers a working set of a thousand documents of a dashboard's or a
 * notebook's size (15–30 KB); a content over a thirty-second of it is never kept, so one large upload cannot push
 * out hundreds of small ones (it is streamed from its file instead).
 */
export const CONTENT_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * Content bytes by file name, least recently read dropped first once over the budget. A content file never changes
 * under its name (a new content is a new file), so a held copy is right for as long as the file exists; the store
 * drops it when it removes the file.
 */
export class ContentCache {
  /** Insertion order is recency: the first entry is the least recently read. */
  private readonly held = new Map<string, Buffer>();
  private total = 0;

  constructor(
    private readonly budget = CONTENT_CACHE_BYTES,
    readonly entryLimit = Math.floor(budget / 32),
  ) {}

  get(file: string): Buffer | undefined {
    const bytes = this.held.get(file);
    if (bytes) {
      this.held.delete(file);
      this.held.set(file, bytes);
    }
    return bytes;
  }

  /** Keeps a file's bytes as read (shared with whoever sends them: never change them); too large ones are not kept. */
  admit(file: string, bytes: Buffer): void {
    if (bytes.length > this.entryLimit) return;
    this.drop(file);
    this.held.set(file, bytes);
    this.total += bytes.length;
    for (const [name, oldest] of this.held) {
      if (this.total <= this.budget) break;
      this.held.delete(name);
      this.total -= oldest.length;
    }
  }

  drop(file: string): void {
    const bytes = this.held.get(file);
    if (!bytes) return;
    this.held.delete(file);
    this.total -= bytes.length;
  }
}
